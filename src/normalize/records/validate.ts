/**
 * The one entry point from untyped JSON to a typed job record. A record that fails is not an error
 * of the run: its problems come back as data ({path, message}), for the quarantine.
 */
import type { z } from 'zod';
import { JOB_KINDS, type JobRecord, jobHeadSchema, jobRecordSchema } from './job-record.js';

export interface RecordProblem {
  /** Dotted path into the record, e.g. `result.transcription.utterances.3.words.7.start`; '' is the record itself. */
  readonly path: string;
  readonly message: string;
}

export type ValidationResult =
  | { ok: true; record: JobRecord }
  | { ok: false; errors: RecordProblem[]; id?: string; kind?: string };

export function validateJobRecord(raw: unknown): ValidationResult {
  const kind = readableField(raw, 'kind');
  const known = (JOB_KINDS as readonly string[]).includes(kind ?? '');
  const parsed = known ? jobRecordSchema.safeParse(raw) : jobHeadSchema.safeParse(raw);
  if (parsed.success && known) return { ok: true, record: parsed.data as JobRecord };
  const errors = parsed.success ? [] : parsed.error.issues.map(toProblem);
  const id = readableField(raw, 'id');
  return { ok: false, errors, ...(id === undefined ? {} : { id }), ...(kind === undefined ? {} : { kind }) };
}

/** A non-empty string field of an object, when there is one: the id and kind of a bad record. */
export function readableField(raw: unknown, key: string): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const value = (raw as Record<string, unknown>)[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function toProblem(issue: z.core.$ZodIssue): RecordProblem {
  return { path: issue.path.map(String).join('.'), message: issue.message };
}
