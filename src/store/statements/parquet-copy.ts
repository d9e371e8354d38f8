/**
 * COPY ... TO Parquet, the one place that spells it: a statement's rows into a file or a folder of
 * Hive partitions (`kind`, `month`), in batches of partitions or a partition per COPY, with the
 * session settings that bound what DuckDB holds while it writes (docs/decisions/0014-published-dataset.md, 0037).
 */
import { rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder } from '../../util/make-folder.js';
import { sqlPathLiteral } from '../../util/sql-literal.js';
import type { RowSource } from '../database.js';
import { withSetting } from '../file/reading-memory.js';
import { countOf } from './queries.js';

type Params = Readonly<Record<string, unknown>>;

export interface ParquetTarget {
  /** Absolute: a folder of Hive partitions, or the one file when `partitionBy` is empty. */
  readonly path: string;
  /** Partition columns, in folder order. */
  readonly partitionBy: readonly string[];
  /** The flag or command an unusable `path` is reported against (sqlPathLiteral). */
  readonly setting: string;
}

/**
 * Partitions one COPY of narrow rows writes at most: DuckDB keeps a writer (and its row group) open
 * per partition; this many fit a Parquet reading's pool at the default budget (decision 0014).
 */
export const PARTITIONS_PER_COPY = 16;

/**
 * Most bytes of a row group a partition's writer builds (ROW_GROUP_SIZE_BYTES, checked every 2,048
 * rows): without it, a row group of a whole partition, allocated in one piece that cannot spill.
 */
const PARQUET_ROW_GROUP_BYTES = 8 * 2 ** 20;

/**
 * ROW_GROUP_SIZE_BYTES of a wide dataset's COPY: below one check's 2,048 rows, so its row groups
 * are 2,048 rows, the least DuckDB writes, and a column's page is at most one such group's.
 */
const WIDE_ROW_GROUP_BYTES = 2 * 2 ** 20;

/**
 * Rows a thread gathers across a COPY's partitions before handing them to their writers
 * (`partitioned_write_flush_threshold`): rows, not bytes, so a wide dataset is not written partitioned.
 */
const PARTITIONED_FLUSH_ROWS = 122_880;

/**
 * `keys` in order, cut into batches of at most PARTITIONS_PER_COPY partitions and `maxJobs` jobs
 * (`jobs`: a partition's count, none when absent); a partition of more jobs is a batch of its own.
 */
export function partitionBatches(
  keys: readonly string[],
  jobs: ReadonlyMap<string, number>,
  maxJobs: number,
): string[][] {
  const batches: string[][] = [];
  let batch: string[] = [];
  let held = 0;
  for (const key of keys) {
    const count = jobs.get(key) ?? 0;
    if (batch.length > 0 && (batch.length === PARTITIONS_PER_COPY || held + count > maxJobs)) {
      batches.push(batch);
      batch = [];
      held = 0;
    }
    batch.push(key);
    held += count;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** Rows of the Parquet file at `file` (a writer's copy of a dataset) written again at `target`. */
export function copyParquetFile(db: RowSource, file: string, target: ParquetTarget): Promise<number> {
  return copyToParquet(db, `SELECT * FROM read_parquet(${sqlPathLiteral(file, 'export')})`, {}, target);
}

/**
 * COPY of `source`'s rows (with columns kind and month when partitioned or filtered): only the
 * `partitions` given (`kind|month`; all when undefined). `wide`: rows of kilobytes, written in row
 * groups as small as a wide partition's, so that no row group is built whole in the pool.
 */
export async function copyToParquet(
  db: RowSource,
  source: string,
  params: Params,
  target: ParquetTarget,
  partitions?: readonly string[],
  wide = false,
): Promise<number> {
  const partitioned = target.partitionBy.length > 0;
  if (!partitioned && partitions === undefined) return copyOnce(db, source, params, target, wide);
  const keys = partitions ?? (await partitionsOf(db, source, params));
  const batches = partitioned ? partitionBatches(keys, new Map(), Infinity) : [keys];
  return copyBatches(db, source, params, target, batches);
}

/** A COPY of `source`'s rows in each batch of partitions (`kind|month`), all into `target`. */
export async function copyBatches(
  db: RowSource,
  source: string,
  params: Params,
  target: ParquetTarget,
  batches: readonly (readonly string[])[],
): Promise<number> {
  let rows = 0;
  for (const batch of batches) {
    rows += await copyOnce(db, ofPartitions(source), { ...params, partitions: [...batch] }, target);
  }
  return rows;
}

/**
 * Each partition of `keys` (`kind|month`) by a COPY of its own into
 * `<target>/kind=<kind>/month=<month>/data_0.parquet`, as PARTITION_BY names them, but handed to the
 * writer a row group at a time, not PARTITIONED_FLUSH_ROWS a thread. Only `target.partitionBy` kind, month.
 */
export async function copyPartitionFiles(
  db: RowSource,
  source: string,
  params: Params,
  target: ParquetTarget,
  keys: readonly string[],
): Promise<number> {
  if (target.partitionBy.join() !== 'kind,month') {
    throw new Error(`a wide dataset is partitioned by kind, month, not ${target.partitionBy.join(', ')}`);
  }
  const rowsOf = `SELECT * EXCLUDE (kind, month) FROM (${source}) AS t WHERE t.kind = $kind AND t.month = $month`;
  // One DuckDB thread: a thread writing wide rows holds pages no pool evicts.
  return withSetting(db, 'threads', '1', async () => {
    let rows = 0;
    for (const key of keys) {
      const cut = key.lastIndexOf('|');
      const kind = key.slice(0, cut);
      const month = key.slice(cut + 1);
      const kindFolder = join(target.path, `kind=${kind}`);
      const folder = join(kindFolder, `month=${month}`);
      await makeFolder(folder);
      const file = join(folder, 'data_0.parquet');
      const into = { path: file, partitionBy: [], setting: target.setting };
      const copied = await copyOnce(db, rowsOf, { ...params, kind, month }, into, true);
      if (copied === 0) await removeEmptyPartition(file, [folder, kindFolder]);
      rows += copied;
    }
    return rows;
  });
}

/** A file of no rows and its folders, left empty: PARTITION_BY writes neither for a partition of no rows. */
async function removeEmptyPartition(file: string, folders: readonly string[]): Promise<void> {
  await rm(file, { force: true });
  for (const folder of folders) {
    try {
      await rmdir(folder);
    } catch {
      return; // another partition's files are in it
    }
  }
}

/** The rows of `rows` in the partitions of `$partitions` (`kind|month`). */
function ofPartitions(rows: string): string {
  return `SELECT * FROM (${rows}) AS t WHERE list_contains($partitions::VARCHAR[], t.kind || '|' || t.month)`;
}

/** The `kind|month` partitions `rows` has rows in, sorted. */
async function partitionsOf(db: RowSource, rows: string, params: Params): Promise<string[]> {
  const found = await db.all<{ key: string }>(
    `SELECT DISTINCT t.kind || '|' || t.month AS key FROM (${rows}) AS t ORDER BY key`,
    params,
  );
  return found.map((row) => row.key);
}

/** One COPY of `source`'s rows (partitions add up in a folder); `wide`: one partition's file of a wide dataset. */
async function copyOnce(
  db: RowSource,
  source: string,
  params: Params,
  target: ParquetTarget,
  wide = false,
): Promise<number> {
  const partitioned = target.partitionBy.length > 0;
  const partitions = partitioned
    ? `, ROW_GROUP_SIZE_BYTES ${PARQUET_ROW_GROUP_BYTES}, PARTITION_BY (${target.partitionBy.join(', ')}), OVERWRITE_OR_IGNORE`
    : wide
      ? `, ROW_GROUP_SIZE_BYTES ${WIDE_ROW_GROUP_BYTES}`
      : '';
  const sql = `COPY (${source}) TO ${sqlPathLiteral(target.path, target.setting)} (FORMAT parquet${partitions})`;
  // Without preserve_insertion_order DuckDB takes ROW_GROUP_SIZE_BYTES; no order is lost: the
  // datasets' statements have no ORDER BY.
  const unordered = { preserve_insertion_order: false };
  const settings = partitioned
    ? { partitioned_write_flush_threshold: PARTITIONED_FLUSH_ROWS, ...unordered }
    : wide
      ? unordered
      : {};
  return withSession(db, settings, () => countOf(db.all(sql, params), 'Count'));
}

/** `fn` with the session's `settings` (names and values written here, never input), each reset after. */
async function withSession<T>(
  db: RowSource,
  settings: Readonly<Record<string, number | boolean>>,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    for (const [name, value] of Object.entries(settings)) await db.all(`SET SESSION ${name} = ${value}`);
    return await fn();
  } finally {
    for (const name of Object.keys(settings)) await db.all(`RESET SESSION ${name}`);
  }
}
