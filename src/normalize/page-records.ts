/**
 * The normalize stage: a page's items into the records to load and the records to quarantine. Each
 * item is checked against the record's shape (record-scan.ts), in the page's one scan or here over
 * its span. An item that meets it is taken as it is (its text stored as `raw`, mapped by DuckDB);
 * any other is parsed and judged by the schema (validateJobRecord), which gives a quarantined
 * record its reasons.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Page } from '../extract/index.js';
import { scanListBody } from '../extract/index.js';
import { JOB_KINDS } from '../kinds.js';
import { RecordScan, RecordScanner } from './record-scan.js';
import { type JobRecord, jobHeadSchema, jobRecordSchema } from './records/job-record.js';
import { RESULT_COLUMNS } from './records/shapes.js';

/** A valid job record on its way to DuckDB. */
export interface JobText {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  /** ISO 8601, as the record has it. */
  readonly createdAt: string;
  /** The record's JSON text as received: stored as `raw`. */
  readonly raw: string;
  /** sha1 of `raw` (UTF-8), hex: an identical hash means an unchanged job. */
  readonly hash: string;
  /** The text DuckDB maps when it must differ from `raw` (record-scan.ts `plain`); undefined: `raw`. */
  readonly doc: string | undefined;
  /** Names of the feature results in `result`: its non-null members but metadata and transcription. */
  readonly modules: readonly string[];
}

/** A record that failed validation, for the quarantine. */
export interface QuarantinedText {
  /** The record's JSON text (any JSON value, not only objects). */
  readonly raw: string;
  readonly errors: readonly RecordProblem[];
  readonly id?: string | undefined;
  readonly kind?: string | undefined;
}

/** The records of one page, or of several loaded together. */
export interface PageRecords {
  /** Pages they came from. */
  readonly pages: number;
  /** Records normalized, valid or not: what a run counts as fetched. */
  readonly count: number;
  /**
   * The id of every record that has a string one, valid or not: what a --full run counts as seen, so
   * a job the service still lists but that failed validation is not taken for a deleted one.
   */
  readonly listedIds: readonly string[];
  /** Valid records in page order; a repeated id keeps its last copy only. */
  readonly jobs: readonly JobText[];
  readonly quarantine: readonly QuarantinedText[];
  /** JSON bytes of these records. */
  readonly bytes: number;
}

/** A page's records: those that meet the record's shape as they are, the others judged by the schema. */
export function normalizePage({ body, items }: Pick<Page, 'body' | 'items'>): PageRecords {
  // Most bodies are pure ASCII, and then latin1 decoding gives the same text several times faster.
  const ascii = isAscii(body);
  const jobs = new Map<string, JobText>();
  const quarantine: QuarantinedText[] = [];
  const listedIds: string[] = [];
  let bytes = 0;
  const scanner = new RecordScanner(body);
  for (const span of items) {
    // Checked in the page's scan, or now over its span (another scanner read the page).
    const item = span instanceof RecordScan ? span : scanner.itemAt(span.start);
    const { heads } = item;
    if (heads.id !== undefined) listedIds.push(heads.id);
    bytes += item.end - item.start;
    const raw = body.toString(ascii ? 'latin1' : 'utf8', item.start, item.end);
    const hash = () => contentHash(body.subarray(item.start, item.end));
    let job: JobText;
    if (item.checked && item.plain) {
      const { id, kind, status, created_at: createdAt } = heads as Required<typeof heads>;
      const modules = item.names.filter(isModule);
      job = { id, kind, status, createdAt, raw, hash: hash(), doc: undefined, modules };
    } else {
      const parsed: unknown = JSON.parse(raw);
      const checked = validateJobRecord(parsed);
      if (!checked.ok) {
        quarantine.push({ raw, errors: checked.errors, id: checked.id, kind: checked.kind });
        continue;
      }
      const { id, kind, status, created_at: createdAt, result } = checked.record;
      const doc = item.plain ? undefined : JSON.stringify(wellFormed(parsed));
      const modules = Object.entries(result ?? {})
        .filter(([name, value]) => value !== null && isModule(name))
        .map(([name]) => name);
      job = { id, kind, status, createdAt, raw, hash: hash(), doc, modules };
    }
    // The last copy of a job listed twice is kept, in the place of its last listing.
    jobs.delete(job.id);
    jobs.set(job.id, job);
  }
  return { pages: 1, count: items.length, listedIds, jobs: [...jobs.values()], quarantine, bytes };
}

function isModule(name: string): boolean {
  return !(RESULT_COLUMNS as readonly string[]).includes(name);
}

/** The identity of a record's content: sha1 of its JSON text (the text stored as `raw`), in hex. */
export function contentHash(raw: string | Uint8Array): string {
  return createHash('sha1').update(raw).digest('hex');
}

/**
 * A parsed value whose JSON text DuckDB reads as JSON.parse read the original: members once each,
 * names unescaped, and a lone surrogate (which DuckDB refuses) as U+FFFD, as the UTF-8 of the
 * stored text has it.
 */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[key.toWellFormed()] = wellFormed(member);
  return out;
}

/**
 * The records of several pages as one batch, each job once: a job in two of them (the walk's
 * anchor, a slice started again, a boundary shared by two slices) keeps its later copy.
 */
export function mergePageRecords(pages: readonly PageRecords[]): PageRecords {
  if (pages.length === 1 && pages[0] !== undefined) return pages[0];
  const jobs = new Map<string, JobText>();
  for (const page of pages) {
    for (const job of page.jobs) {
      jobs.delete(job.id);
      jobs.set(job.id, job);
    }
  }
  return {
    pages: pages.reduce((sum, page) => sum + page.pages, 0),
    count: pages.reduce((sum, page) => sum + page.count, 0),
    listedIds: pages.flatMap((page) => page.listedIds),
    jobs: [...jobs.values()],
    quarantine: pages.flatMap((page) => page.quarantine),
    bytes: pages.reduce((sum, page) => sum + page.bytes, 0),
  };
}

/** Records given as JSON texts (a stored record, a test's), normalized as a page of them would be. */
export function normalizeTexts(texts: readonly string[]): PageRecords {
  const body = Buffer.from(`{"next":null,"items":[${texts.join(',')}]}`, 'utf8');
  return normalizePage({ body, items: scanListBody(body, RecordScanner).items });
}

export interface RecordProblem {
  /** Dotted path into the record, e.g. `result.transcription.utterances.3.words.7.start`; '' is the record itself. */
  readonly path: string;
  readonly message: string;
}

type ValidationResult =
  | { ok: true; record: JobRecord }
  | { ok: false; errors: RecordProblem[]; id?: string; kind?: string };

/**
 * The one entry point from untyped JSON to a typed job record. A record that fails is not an error
 * of the run: its problems come back as data ({path, message}), for the quarantine.
 */
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
function readableField(raw: unknown, key: string): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const value = (raw as Record<string, unknown>)[key];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function toProblem(issue: z.core.$ZodIssue): RecordProblem {
  return { path: issue.path.map(String).join('.'), message: issue.message };
}
