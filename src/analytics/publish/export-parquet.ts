/**
 * `transcript-sync export`: Parquet files of jobs, utterances, words and module results, partitioned
 * Hive-style by kind and month (UTC, of the job's created_at), for other engines:
 *   OUT/jobs/kind=live/month=2026-10/data_0.parquet
 * Each table is written into a hidden staging folder under OUT and moved into place only when every
 * table is written, so a failed export leaves OUT as it was: the staging folder is removed when the
 * export fails, when SIGINT or SIGTERM ends it, and, should a kill leave one, by the next export into
 * OUT once its process is gone. OUT and the parents the export made for it go the same way, while
 * empty. Partition columns live in the folder names (read with hive_partitioning), not inside the
 * files.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
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
  const made = madeFolders(out, await makeFolder(out));
  const run = made.reduce<() => Promise<Exported[]>>(
    (inner, dir) => () => removedOnSignal(dir, inner, 'if-empty'),
    () => removedOnSignal(staging, () => exportInto(options, out, staging)),
  );
  try {
    return await run();
  } catch (error) {
    for (const dir of made) await rmdir(dir).catch(() => {});
    throw error;
  }
}

interface Exported {
  readonly table: string;
  readonly rows: number;
  readonly dir: string;
}

/**
 * The folders the export made: `out` and its parents up to `outermost`, the first one makeFolder
 * made (none when undefined), innermost first.
 */
function madeFolders(out: string, outermost: string | undefined): string[] {
  if (outermost === undefined) return [];
  const made = [out];
  for (let dir = out; dir !== outermost && dirname(dir) !== dir; ) {
    dir = dirname(dir);
    made.push(dir);
  }
  return made;
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

async function exportInto(options: ExportOptions, out: string, staging: string): Promise<Exported[]> {
  await makeFolder(staging);
  try {
    const exported: Exported[] = [];
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
