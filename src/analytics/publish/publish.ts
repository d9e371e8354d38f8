/**
 * `sync --publish DIR` / `worker --publish DIR`: after each run that synced a kind the writer keeps a
 * Parquet dataset of the database in DIR for other engines (Spark, Trino, Polars, DuckDB elsewhere):
 *   DIR/<table>/kind=<kind>/month=<YYYY-MM>/data_0.parquet   and   DIR/_manifest.json
 * Only partitions whose fingerprint changed are rewritten, so a publish after a small sync writes
 * about the touched months, not the history. Each partition is one file, written into a hidden
 * staging folder in DIR and renamed over the old one (rename is atomic on one file system): a reader
 * sees the old file or the new, never a part, never two runs mixed in one partition. The manifest
 * is written last, also by rename.
 */

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  copyDataset,
  type Dataset,
  datasetFingerprints,
  fingerprintTag,
  jobPartitionPrints,
  kindFreshness,
  parquetFileRows,
  type RowSource,
} from '../../store/index.js';
import { makeFolder } from '../../util/make-folder.js';
import { PARTITION_COLUMNS } from './export-parquet.js';
import {
  MANIFEST_FILE,
  MANIFEST_VERSION,
  type PublishedKind,
  type PublishedPartition,
  type PublishedTable,
  readManifest,
  writeManifest,
} from './manifest.js';

/** `jobs`: the partition follows its jobs' fingerprint; `content`: a hash of the rows themselves. */
type Fingerprinted = 'jobs' | 'content';

interface PublishedSpec {
  readonly table: string;
  readonly dataset: Dataset;
  readonly fingerprint: Fingerprinted;
}

export const PUBLISHED_TABLES: readonly PublishedSpec[] = [
  { table: 'jobs', dataset: 'jobs', fingerprint: 'jobs' },
  { table: 'utterances', dataset: 'utterances', fingerprint: 'jobs' },
  { table: 'words', dataset: 'words', fingerprint: 'jobs' },
  { table: 'module_results', dataset: 'module_results', fingerprint: 'jobs' },
  // Small aggregates whose figures may follow more than the jobs (e.g. rates): hashed whole.
  { table: 'billing_daily', dataset: 'billing_daily', fingerprint: 'content' },
  { table: 'billing_monthly', dataset: 'billing_monthly', fingerprint: 'content' },
];

export interface PublishOptions {
  readonly db: RowSource;
  readonly dir: string;
  /** Add each job's `raw` (the record as received, job_records) to the jobs files; default false. */
  readonly raw?: boolean;
  /** The instant the data is as of; default now. */
  readonly now?: Date;
  /** Aborted: the publish stops before its next table (the manifest stays the previous one). */
  readonly signal?: AbortSignal;
}

export interface PublishResult {
  readonly dir: string;
  /** Partition files written (tables × partitions). */
  readonly written: number;
  readonly unchanged: number;
  readonly removed: number;
  /** Bytes of the Parquet files and the manifest written. */
  readonly bytes: number;
  /** Kinds whose newest run did not end ok: their data stops at their last successful sync. */
  readonly stale: readonly string[];
}

interface Totals {
  written: number;
  unchanged: number;
  removed: number;
  bytes: number;
}

/** Where a run publishes its dataset (`--publish DIR`, `--publish-raw`). */
export interface PublishTarget {
  /** Absolute folder of the dataset. */
  readonly dir: string;
  /** Add each job's `raw` to the published jobs. */
  readonly raw: boolean;
}

export async function publishDataset(options: PublishOptions): Promise<PublishResult> {
  const dir = resolve(options.dir);
  await makeFolder(dir);
  await removeStaleStaging(dir);
  const previous = await readManifest(dir);
  const raw = options.raw ?? false;
  const asOf = (options.now ?? new Date()).toISOString();
  const kinds = await kindStates(options.db);
  const jobPrints = await jobFingerprints(options.db);
  const staging = join(dir, `.publish-${process.pid}-${randomBytes(4).toString('hex')}`);
  const totals: Totals = { written: 0, unchanged: 0, removed: 0, bytes: 0 };
  await makeFolder(staging);
  const tables: Record<string, PublishedTable> = {};
  try {
    for (const spec of PUBLISHED_TABLES) {
      options.signal?.throwIfAborted();
      const dataset = spec.table === 'jobs' && raw ? 'jobs_with_raw' : spec.dataset;
      const prints =
        spec.fingerprint === 'jobs'
          ? new Map([...jobPrints].map(([key, print]) => [key, `${fingerprintTag(dataset)}:${print}`]))
          : await contentFingerprints(options.db, dataset);
      const before = new Map(
        (previous?.tables[spec.table]?.partitions ?? []).map((p) => [`${p.kind}|${p.month}`, p]),
      );
      tables[spec.table] = await publishTable(options.db, {
        dir,
        staging,
        spec,
        dataset,
        prints,
        before,
        totals,
      });
    }
    await writeManifest(dir, { version: MANIFEST_VERSION, as_of: asOf, kinds, raw, tables });
    totals.bytes += (await stat(join(dir, MANIFEST_FILE))).size;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const stale = Object.keys(kinds).filter((kind) => kinds[kind]?.stale);
  return { dir, ...totals, stale };
}

/** Each kind's freshness from sync_runs (sql/queries/publish-kinds.sql). */
async function kindStates(db: PublishOptions['db']): Promise<Record<string, PublishedKind>> {
  const rows = await kindFreshness(db);
  return Object.fromEntries(
    rows.map((row) => [
      row.kind,
      { as_of: row.as_of, stale: row.last_outcome !== 'ok', error: row.last_error },
    ]),
  );
}

interface TableRun {
  readonly dir: string;
  readonly staging: string;
  readonly spec: PublishedSpec;
  readonly dataset: Dataset;
  /** `kind|month` → fingerprint, for every partition that has rows now. */
  readonly prints: ReadonlyMap<string, string>;
  readonly before: ReadonlyMap<string, PublishedPartition>;
  readonly totals: Totals;
}

async function publishTable(db: PublishOptions['db'], run: TableRun): Promise<PublishedTable> {
  const { dir, spec, prints, before, totals } = run;
  const changed = [...prints.keys()].filter((key) => {
    const old = before.get(key);
    if (!old) return true;
    return old.fingerprint !== prints.get(key) || (old.file !== null && !existsSync(join(dir, old.file)));
  });
  await makeFolder(join(dir, spec.table));
  const staged = join(run.staging, spec.table);
  if (changed.length > 0) {
    await copyDataset(
      db,
      run.dataset,
      { include_deleted: false, partitions: changed },
      { path: staged, partitionBy: PARTITION_COLUMNS, setting: '--out' },
    );
  }
  const rewritten = new Set(changed);
  const kept: PublishedPartition[] = [];
  const swapped: SwappedPartition[] = [];
  for (const key of prints.keys()) {
    const old = before.get(key);
    if (old && !rewritten.has(key)) {
      kept.push(old);
      totals.unchanged += 1;
    } else {
      swapped.push(await swapPartition(run, key));
      totals.written += 1;
    }
  }
  // The rows of the files just written, read back from them, in one statement for the table.
  const files = swapped.flatMap((p) => (p.file === null ? [] : [join(dir, p.file)]));
  const rows = await parquetFileRows(db, files);
  const partitions = [
    ...kept,
    ...swapped.map((p) => ({ ...p, rows: p.file === null ? 0 : rowsOf(rows, join(dir, p.file)) })),
  ].sort((a, b) => (partitionKey(a) < partitionKey(b) ? -1 : 1));
  for (const [key, old] of before) {
    if (prints.has(key)) continue;
    await rm(join(dir, spec.table, partitionPath(old.kind, old.month)), { recursive: true, force: true });
    totals.removed += 1;
  }
  return { rows: partitions.reduce((sum, p) => sum + p.rows, 0), partitions };
}

/** A partition whose file a publish replaced or removed, before its rows are read back. */
type SwappedPartition = Omit<PublishedPartition, 'rows'>;

/**
 * Moves the staged file of one partition over the published one (or removes it: no rows now). Its
 * rows are counted by the caller, from the file, with the table's other new files.
 */
async function swapPartition(run: TableRun, key: string): Promise<SwappedPartition> {
  const [kind = '', month = ''] = key.split('|');
  const fingerprint = run.prints.get(key) ?? '';
  const relativeDir = join(run.spec.table, partitionPath(kind, month));
  const stagedDir = join(run.staging, run.spec.table, partitionPath(kind, month));
  const files = existsSync(stagedDir) ? (await readdir(stagedDir)).filter((f) => f.endsWith('.parquet')) : [];
  if (files.length === 0) {
    await rm(join(run.dir, relativeDir), { recursive: true, force: true });
    return { kind, month, file: null, fingerprint };
  }
  if (files.length > 1)
    throw new Error(`DuckDB wrote ${files.length} files for one partition in ${stagedDir}`);
  const file = join(relativeDir, 'data_0.parquet');
  const target = join(run.dir, file);
  await makeFolder(join(run.dir, relativeDir));
  const source = join(stagedDir, files[0] ?? '');
  const size = (await stat(source)).size;
  await rename(source, target);
  run.totals.bytes += size;
  return { kind, month, file, fingerprint };
}

/** The rows DuckDB read from `file`'s footer; a file it did not name is an error, not 0 rows. */
function rowsOf(rows: ReadonlyMap<string, number>, file: string): number {
  const n = rows.get(file);
  if (n === undefined) throw new Error(`DuckDB read no footer of ${file}, which the publish just wrote`);
  return n;
}

function partitionKey(p: { readonly kind: string; readonly month: string }): string {
  return `${p.kind}|${p.month}`;
}

function partitionPath(kind: string, month: string): string {
  return join(`kind=${kind}`, `month=${month}`);
}

async function jobFingerprints(db: PublishOptions['db']): Promise<Map<string, string>> {
  const rows = await jobPartitionPrints(db);
  return new Map(rows.map((r) => [partitionKey(r), `${r.jobs}:${r.synced}:${r.hash}`]));
}

async function contentFingerprints(db: PublishOptions['db'], dataset: Dataset): Promise<Map<string, string>> {
  const rows = await datasetFingerprints(db, dataset);
  return new Map(rows.map((r) => [partitionKey(r), `${fingerprintTag(dataset)}:${r.n}:${r.hash}`]));
}

/** Staging folders of a publish that crashed; only the file's writer publishes here. */
async function removeStaleStaging(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith('.publish-')) await rm(join(dir, name), { recursive: true, force: true });
  }
}
