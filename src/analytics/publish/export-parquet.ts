/**
 * `transcript-sync export`: Parquet files of jobs, utterances, words and module results, partitioned
 * Hive-style by kind and month (UTC, of the job's created_at), for other engines:
 *   OUT/jobs/kind=live/month=2026-10/data_0.parquet
 * Each table is written into a hidden staging folder under OUT and moved into place only when every
 * table is written, so a failed export leaves OUT as it was: the staging folder is removed when the
 * export fails, when SIGINT or SIGTERM ends it, and, should a kill leave one, by the next export into
 * OUT once its process is gone. Partition columns live in the folder names (read with
 * hive_partitioning), not inside the files.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../errors.js';
import { EXPORTED_DATASETS, pidAlive } from '../../store/index.js';
import { makeFolder } from '../../util/make-folder.js';
import { removedOnSignal } from '../../util/removed-on-signal.js';
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
  await removeStaleStaging(out);
  const staging = join(out, `${STAGING_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  return removedOnSignal(staging, () => exportInto(options, out, staging));
}

/** The name of a staging folder, before `<pid>-<hex>`. */
const STAGING_PREFIX = '.export-';
const STAGING_NAME = /^\.export-(\d+)-[0-9a-f]+$/;

/** Removes the staging folders in `out` of exports whose process is gone. */
async function removeStaleStaging(out: string): Promise<void> {
  const names = await readdir(out).catch(() => []);
  for (const name of names) {
    const pid = Number(STAGING_NAME.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !pidAlive(pid))
      await rm(join(out, name), { recursive: true, force: true });
  }
}

async function exportInto(options: ExportOptions, out: string, staging: string) {
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
