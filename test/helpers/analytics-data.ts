import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Command } from '../../src/cli/command.js';
import { parseCommandArgs } from '../../src/cli/command.js';
import { TsyncError } from '../../src/errors.js';
import { generateDataset, type JobRecord } from '../../src/simulator/index.js';
import { openWriter } from '../../src/store/open-file.js';
import { loadRecords as loadInto } from './load.js';
import { copyMigrated } from './migrated-db.js';
import { fileTempDir } from './tmp.js';

type Json = Record<string, unknown>;

/**
 * Loads `records` into the file at `path` through the loader; a file not there yet starts as a copy
 * of a migrated, empty one (./migrated-db.ts): these files are about what reads them, not about
 * their creation.
 */
export async function loadRecords(path: string, records: readonly JobRecord[]): Promise<void> {
  if (!existsSync(path)) await copyMigrated(path);
  const db = await openWriter(path);
  try {
    await loadInto(db, records);
  } finally {
    await db.close();
  }
}

/** Runs SQL on a writable open (e.g. to mark jobs deleted as a --full sync would). */
export async function writeSql(path: string, sql: string, params?: Json): Promise<void> {
  const db = await openWriter(path);
  try {
    await db.run(sql, params);
  } finally {
    await db.close();
  }
}

/**
 * A DuckDB file for the tests of one file: loaded with `records` before them, the `deleted` ids
 * marked as a --full sync marks jobs it no longer finds upstream (deleted_at = `deletedAt`, default
 * now), and removed after them. Returns its path.
 */
export function loadedDatabase(
  name: string,
  records: readonly JobRecord[],
  options: { deleted?: readonly string[]; deletedAt?: Date } = {},
): string {
  const temp = fileTempDir(`tsync-${name}-`);
  const path = join(temp.dir, `${name}.duckdb`);
  beforeAll(async () => {
    await loadRecords(path, records);
    for (const id of options.deleted ?? []) {
      await writeSql(path, 'UPDATE jobs SET deleted_at = $at WHERE id = $id', {
        id,
        at: options.deletedAt ?? new Date(),
      });
    }
  });
  afterAll(() => temp.remove());
  return path;
}

export function smallDataset(seed = 11, jobsPerKind = 60): JobRecord[] {
  return generateDataset({
    seed,
    preRecorded: jobsPerKind,
    live: jobsPerKind,
    utterancesPerJob: 3,
    wordsPerUtterance: 3,
  });
}

export interface Crafted {
  readonly id: string;
  readonly kind: 'pre-recorded' | 'live';
  readonly status?: 'done' | 'error' | 'queued' | 'processing';
  readonly createdAt: string;
  readonly completedAt?: string | null;
  readonly billingTime?: number;
  readonly audioDuration?: number;
  readonly transcriptionTime?: number;
  readonly errorCode?: number | null;
  readonly text?: string;
  /** Replaces custom_metadata (null: none). */
  readonly customMetadata?: Json | null;
  /** Sets request_params.model; null removes it. */
  readonly model?: string | null;
}

/** A record shaped by the generator (so it validates) with the fields a test controls set. */
export function craftJob(template: readonly JobRecord[], spec: Crafted): JobRecord {
  const status = spec.status ?? 'done';
  const base = template.find(
    (r) => r['kind'] === spec.kind && r['status'] === status && (status !== 'done' || hasUtterance(r)),
  );
  if (!base) throw new Error(`no ${spec.kind} ${status} record to craft from`);
  const record = structuredClone(base) as Json;
  record['id'] = spec.id;
  record['created_at'] = spec.createdAt;
  if (spec.completedAt !== undefined) record['completed_at'] = spec.completedAt;
  if (spec.errorCode !== undefined) record['error_code'] = spec.errorCode;
  if (spec.customMetadata !== undefined) record['custom_metadata'] = spec.customMetadata;
  const params = record['request_params'] as Json | null | undefined;
  if (spec.model !== undefined && params) {
    if (spec.model === null) delete params['model'];
    else params['model'] = spec.model;
  }
  const result = record['result'] as Json | null;
  const metadata = result?.['metadata'] as Json | undefined;
  if (metadata) {
    if (spec.billingTime !== undefined) metadata['billing_time'] = spec.billingTime;
    if (spec.audioDuration !== undefined) metadata['audio_duration'] = spec.audioDuration;
    if (spec.transcriptionTime !== undefined) metadata['transcription_time'] = spec.transcriptionTime;
  }
  const first = (((result?.['transcription'] as Json | undefined)?.['utterances'] as Json[] | undefined) ??
    [])[0];
  if (first && spec.text !== undefined) first['text'] = spec.text;
  return record;
}

function hasUtterance(record: JobRecord): boolean {
  const transcription = (record['result'] as Json | null)?.['transcription'] as Json | undefined;
  return (
    Array.isArray(transcription?.['utterances']) && (transcription['utterances'] as unknown[]).length > 0
  );
}

export interface ExpectedBilling {
  jobs: number;
  billed_hours: number;
  audio_hours: number;
  transcription_hours: number;
}

/** Billing figures per `period|kind`, from the JSON: done jobs with a numeric billing_time. */
export function expectedBilling(
  records: readonly JobRecord[],
  by: 'day' | 'month',
  filter: { kind?: string; from?: string; before?: string } = {},
): Map<string, ExpectedBilling> {
  const out = new Map<string, ExpectedBilling>();
  for (const record of records) {
    const metadata = (record['result'] as Json | null)?.['metadata'] as Json | undefined;
    const billing = metadata?.['billing_time'];
    if (record['status'] !== 'done' || typeof billing !== 'number') continue;
    if (filter.kind && record['kind'] !== filter.kind) continue;
    const created = new Date(String(record['created_at']));
    if (filter.from && created < new Date(filter.from)) continue;
    if (filter.before && created >= new Date(filter.before)) continue;
    const period = created.toISOString().slice(0, by === 'day' ? 10 : 7);
    const key = `${period}|${String(record['kind'])}`;
    const row = out.get(key) ?? { jobs: 0, billed_hours: 0, audio_hours: 0, transcription_hours: 0 };
    row.jobs += 1;
    row.billed_hours += billing / 3600;
    row.audio_hours += Number(metadata?.['audio_duration'] ?? 0) / 3600;
    row.transcription_hours += Number(metadata?.['transcription_time'] ?? 0) / 3600;
    out.set(key, row);
  }
  return out;
}

export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly error?: TsyncError;
}

/** Parses argv like the program does and runs the command in this process, capturing stdout. */
export async function runCommand(command: Command, argv: readonly string[]): Promise<CliOutcome> {
  let stdout = '';
  const sink = {
    write(chunk: string | Uint8Array): boolean {
      stdout += String(chunk);
      return true;
    },
  } as NodeJS.WritableStream;
  try {
    const { flags, positionals } = parseCommandArgs(command, argv);
    const code = await command.run({ flags, positionals, stdout: sink, stderr: sink, env: {} });
    return { code, stdout };
  } catch (error) {
    if (error instanceof TsyncError) return { code: error.exitCode, stdout, error };
    throw error;
  }
}

/** Runs a command that must succeed with `--format json` among `argv`, and parses what it printed. */
export async function jsonRows(command: Command, argv: readonly string[]): Promise<Json[]> {
  const outcome = await runCommand(command, argv);
  expect(outcome.error).toBeUndefined();
  const parsed = JSON.parse(outcome.stdout) as Json[] | { rows: Json[] };
  // report billing prints one object whose rows are under `rows`; the other reports an array.
  return Array.isArray(parsed) ? parsed : parsed.rows;
}

/** A successful sync of each kind, as the engine records it, so that reports have an as_of. */
export async function recordSyncs(path: string, windowBefore: Date): Promise<void> {
  for (const kind of ['pre-recorded', 'live']) {
    await writeSql(
      path,
      `INSERT INTO sync_runs (run_id, kind, mode, window_before, started_at, finished_at, outcome)
       VALUES ($run, $kind, 'incremental', $before, $before, $before, 'ok')`,
      { run: `test-${kind}-${windowBefore.getTime()}`, kind, before: windowBefore },
    );
  }
}
