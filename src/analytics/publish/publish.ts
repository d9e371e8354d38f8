/**
 * `sync --publish DIR|s3://BUCKET/PREFIX` (and the worker's): after each run that synced a kind the
 * writer keeps a Parquet dataset of the database for other engines (Spark, Trino, Polars, DuckDB
 * elsewhere), in a folder or a bucket:
 *   <table>/kind=<kind>/month=<YYYY-MM>/<file>.parquet   and   _manifest.json
 * Only partitions whose fingerprint changed are rewritten, so a publish after a small sync writes
 * about the touched months, not the history. DuckDB writes each changed partition as one file into
 * a local staging folder; the target puts it in place (folder-target.ts renames it over the old
 * one, s3-target.ts uploads it under a new name) and the manifest is written last.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
import { isBucketUrl } from './bucket-url.js';
import { PARTITION_COLUMNS } from './export-parquet.js';
import { type DatasetTarget, openFolderTarget, partitionPath } from './folder-target.js';
import {
  MANIFEST_VERSION,
  type PublishedKind,
  type PublishedPartition,
  type PublishedTable,
} from './manifest.js';

interface PublishedSpec {
  readonly table: string;
  readonly dataset: Dataset;
  /** `jobs`: the partition follows its jobs' fingerprint; `content`: a hash of the rows themselves. */
  readonly fingerprint: 'jobs' | 'content';
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

/** Where a run publishes its dataset (`--publish`, `--publish-raw`, `--publish-keep`, `--publish-endpoint`). */
export interface PublishTarget {
  /** A folder, or `s3://BUCKET[/PREFIX]`. */
  readonly dir: string;
  /** Add each job's `raw` (the record as received, job_records) to the jobs files; default false. */
  readonly raw?: boolean;
  /** With a bucket: the manifests kept, with the files they name; default 2. */
  readonly keep?: number;
  /** With a bucket: an S3-compatible endpoint, addressed path-style; default the SDK's chain. */
  readonly endpoint?: string;
}

export interface PublishOptions extends PublishTarget {
  readonly db: RowSource;
  /** Aborted: the publish stops before its next table, and a bucket's uploads are aborted (the manifest stays the previous one). */
  readonly signal?: AbortSignal;
  /**
   * With a bucket: the local folder the files are staged in before they are uploaded, emptied at
   * the start and removed at the end; default a new folder in the system's temporary folder.
   */
  readonly staging?: string;
}

interface Totals {
  /** Partition files written (tables × partitions). */
  written: number;
  unchanged: number;
  removed: number;
  /** Bytes of the Parquet files and the manifest written. */
  bytes: number;
}

export interface PublishResult extends Readonly<Totals> {
  /** The folder or the s3:// URL. */
  readonly dir: string;
  /** Kinds whose newest run did not end ok: their data stops at their last successful sync. */
  readonly stale: readonly string[];
}

export async function publishDataset(options: PublishOptions): Promise<PublishResult> {
  const dir = isBucketUrl(options.dir) ? options.dir : resolve(options.dir);
  const now = new Date();
  const target = await openTarget(options, dir, now);
  const id = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = isBucketUrl(dir)
    ? (options.staging ?? join(tmpdir(), `tsync-publish-${id}`))
    : join(dir, `.publish-${id}`);
  const raw = options.raw ?? false;
  const totals: Totals = { written: 0, unchanged: 0, removed: 0, bytes: 0 };
  const tables: Record<string, PublishedTable> = {};
  let kinds: Record<string, PublishedKind>;
  try {
    // Emptied first: a publish that crashed may have left files under the name given.
    await rm(staging, { recursive: true, force: true });
    await makeFolder(staging);
    kinds = Object.fromEntries(
      (await kindFreshness(options.db)).map((row) => [
        row.kind,
        { as_of: row.as_of, stale: row.last_outcome !== 'ok', error: row.last_error },
      ]),
    );
    const jobPrints = new Map(
      (await jobPartitionPrints(options.db)).map((r) => [partitionKey(r), `${r.jobs}:${r.synced}:${r.hash}`]),
    );
    for (const spec of PUBLISHED_TABLES) {
      options.signal?.throwIfAborted();
      const dataset = spec.table === 'jobs' && raw ? 'jobs_with_raw' : spec.dataset;
      const prints =
        spec.fingerprint === 'jobs'
          ? new Map([...jobPrints].map(([key, print]) => [key, `${fingerprintTag(dataset)}:${print}`]))
          : await contentFingerprints(options.db, dataset);
      const staged = join(staging, spec.table);
      tables[spec.table] = await publishTable(options.db, { target, spec, dataset, staged, prints, totals });
    }
    totals.bytes += await target.commit({
      version: MANIFEST_VERSION,
      as_of: now.toISOString(),
      kinds,
      raw,
      tables,
    });
  } finally {
    await target.close();
    await rm(staging, { recursive: true, force: true });
  }
  const stale = Object.keys(kinds).filter((kind) => kinds[kind]?.stale);
  return { dir, ...totals, stale };
}

async function openTarget(options: PublishOptions, dir: string, now: Date): Promise<DatasetTarget> {
  if (!isBucketUrl(dir)) return openFolderTarget(dir);
  // The SDK loads only for a bucket.
  const { openBucketTarget } = await import('./s3-target.js');
  return openBucketTarget({
    ...options,
    url: dir,
    keep: options.keep ?? 2,
    tables: PUBLISHED_TABLES.map((t) => t.table),
    now,
  });
}

interface TableRun {
  readonly target: DatasetTarget;
  readonly spec: PublishedSpec;
  readonly dataset: Dataset;
  /** The local folder DuckDB writes the table's changed partitions into. */
  readonly staged: string;
  /** `kind|month` → fingerprint, for every partition that has rows now. */
  readonly prints: ReadonlyMap<string, string>;
  readonly totals: Totals;
}

async function publishTable(db: RowSource, run: TableRun): Promise<PublishedTable> {
  const { target, spec, staged, prints, totals } = run;
  const previous = target.previous?.tables[spec.table]?.partitions ?? [];
  const before = new Map(previous.map((p) => [partitionKey(p), p]));
  const changed = [...prints.keys()].filter((key) => {
    const old = before.get(key);
    return !old || old.fingerprint !== prints.get(key) || (old.file !== null && !target.holds(old.file));
  });
  if (changed.length > 0) {
    await copyDataset(
      db,
      run.dataset,
      { include_deleted: false, partitions: changed },
      { path: staged, partitionBy: PARTITION_COLUMNS, setting: '--out' },
    );
  }
  // The staged file of each changed partition (null: no rows now), and their rows read back from
  // the files, in one statement for the table.
  const files = new Map<string, string | null>();
  for (const key of changed) files.set(key, await stagedFile(staged, key));
  const written = [...files.values()].filter((file) => file !== null);
  const rows = await parquetFileRows(db, written);
  const partitions: PublishedPartition[] = [];
  for (const [key, fingerprint] of prints) {
    const old = before.get(key);
    const file = files.get(key);
    if (old && file === undefined) {
      partitions.push(old);
      totals.unchanged += 1;
      continue;
    }
    const [kind = '', month = ''] = key.split('|');
    if (file === null || file === undefined) {
      await target.drop(spec.table, kind, month);
      partitions.push({ kind, month, rows: 0, file: null, fingerprint });
    } else {
      const n = rows.get(file);
      if (n === undefined) throw new Error(`DuckDB read no footer of ${file}, which the publish just wrote`);
      totals.bytes += (await stat(file)).size;
      const placed = await target.place(file, spec.table, kind, month);
      partitions.push({ kind, month, rows: n, file: placed, fingerprint });
    }
    totals.written += 1;
  }
  partitions.sort((a, b) => (partitionKey(a) < partitionKey(b) ? -1 : 1));
  for (const [key, old] of before) {
    if (prints.has(key)) continue;
    await target.drop(spec.table, old.kind, old.month);
    totals.removed += 1;
  }
  return { rows: partitions.reduce((sum, p) => sum + p.rows, 0), partitions };
}

/** The one file DuckDB wrote for a partition into `staged`; null when it wrote none (no rows). */
async function stagedFile(staged: string, key: string): Promise<string | null> {
  const [kind = '', month = ''] = key.split('|');
  const dir = join(staged, partitionPath(kind, month));
  const files = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.parquet')) : [];
  if (files.length > 1) throw new Error(`DuckDB wrote ${files.length} files for one partition in ${dir}`);
  return files[0] === undefined ? null : join(dir, files[0]);
}

function partitionKey(p: { readonly kind: string; readonly month: string }): string {
  return `${p.kind}|${p.month}`;
}

async function contentFingerprints(db: RowSource, dataset: Dataset): Promise<Map<string, string>> {
  const rows = await datasetFingerprints(db, dataset);
  return new Map(rows.map((r) => [partitionKey(r), `${fingerprintTag(dataset)}:${r.n}:${r.hash}`]));
}
