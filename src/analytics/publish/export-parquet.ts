/**
 * `transcript-sync export`: Parquet files of jobs, utterances, words and module results, partitioned
 * Hive-style by kind and month (UTC, of the job's created_at), for other engines:
 *   OUT/jobs/kind=live/month=2026-10/data_0.parquet
 * Each table is written into a hidden staging folder under OUT and moved into place only when every
 * table is written, so a failed export leaves OUT as it was. Partition columns live in the folder
 * names (read with hive_partitioning), not inside the files.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../errors.js';
import { EXPORTED_DATASETS } from '../../store/index.js';
import { makeFolder } from '../../util/make-folder.js';
import type { Reader } from '../read/reader.js';

/** Hive partition columns of every exported table, in folder order. */
export const PARTITION_COLUMNS = ['kind', 'month'] as const;

export interface ExportOptions {
  readonly db: Reader;
  /** Output folder; created when missing. */
  readonly outDir: string;
  /** Default false: jobs a --full sync no longer found upstream (and their rows) stay out. */
  readonly includeDeleted?: boolean;
  /** Replace table folders a previous export left in outDir; without it they are an error. */
  readonly overwrite?: boolean;
}

export async function exportParquet(options: ExportOptions) {
  const out = resolve(options.outDir);
  const existing = EXPORTED_DATASETS.map((table) => join(out, table)).filter((dir) => existsSync(dir));
  if (existing.length > 0 && !options.overwrite) {
    throw new ConfigError('--out', `${existing[0]} already exists`, {
      hint: 'pass --overwrite to replace the previous export, or choose another --out folder',
    });
  }
  const staging = join(out, `.export-${process.pid}-${randomBytes(4).toString('hex')}`);
  await makeFolder(staging);
  try {
    const exported: { table: string; rows: number; dir: string }[] = [];
    for (const table of EXPORTED_DATASETS) {
      const target = join(staging, table);
      const rows = await options.db.copyParquet(
        table,
        { include_deleted: options.includeDeleted ?? false },
        { path: target, partitionBy: PARTITION_COLUMNS, setting: '--out' },
      );
      // COPY writes no folder for an empty table; an empty folder still says "exported, no rows".
      await makeFolder(target);
      exported.push({ table, rows, dir: join(out, table) });
    }
    for (const table of EXPORTED_DATASETS) {
      await rm(join(out, table), { recursive: true, force: true });
      await rename(join(staging, table), join(out, table));
    }
    return exported;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
