/**
 * Where a publish (publish.ts) puts its files: a folder (this file) or a bucket (s3-target.ts).
 * The folder keeps one file per partition, `table/kind=K/month=M/data_0.parquet`, renamed over the
 * old one (atomic on one file system), so a reader listing the folder sees the old file or the new;
 * the publish stages in a hidden folder of the dataset folder, on the same file system.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder } from '../../util/make-folder.js';
import { writeFileAtomic } from './atomic-file.js';
import { MANIFEST_FILE, type Manifest, manifestText, parseManifest } from './manifest.js';

export interface DatasetTarget {
  /** The manifest the last publish left; undefined when there is none or it is unreadable. */
  readonly previous: Manifest | undefined;
  /** Whether a file the previous manifest names is still there (else its partition is rewritten). */
  holds(file: string): boolean;
  /**
   * Puts a staged partition file in place and returns its name relative to the dataset, as the
   * manifest names it. May return before the file is in place; `commit` waits for it.
   */
  place(staged: string, table: string, kind: string, month: string): Promise<string>;
  /** A partition that has no rows now: its file leaves the dataset. */
  drop(table: string, kind: string, month: string): Promise<void>;
  /** Writes the manifest once every placed file is in place; returns its bytes. */
  commit(manifest: Manifest): Promise<number>;
  /** Stops what is still in flight. Called whatever happened. */
  close(): Promise<void>;
}

export function partitionPath(kind: string, month: string): string {
  return join(`kind=${kind}`, `month=${month}`);
}

/** A dataset in the folder `dir` (absolute), made when missing. */
export async function openFolderTarget(dir: string): Promise<DatasetTarget> {
  await makeFolder(dir);
  await removeStaleStaging(dir);
  const previous = parseManifest(await readFile(join(dir, MANIFEST_FILE), 'utf8').catch(() => ''));
  return {
    previous,
    holds: (file) => existsSync(join(dir, file)),
    async place(staged, table, kind, month) {
      const file = join(table, partitionPath(kind, month), 'data_0.parquet');
      await makeFolder(join(dir, table, partitionPath(kind, month)));
      await rename(staged, join(dir, file));
      return file;
    },
    async drop(table, kind, month) {
      await rm(join(dir, table, partitionPath(kind, month)), { recursive: true, force: true });
    },
    async commit(manifest) {
      // A table with no rows still has its folder: "published, no rows".
      for (const table of Object.keys(manifest.tables)) await makeFolder(join(dir, table));
      const text = manifestText(manifest);
      await writeFileAtomic(join(dir, MANIFEST_FILE), text);
      return Buffer.byteLength(text);
    },
    close: async () => {},
  };
}

/** Staging folders of a publish that crashed; only the file's writer publishes here. */
async function removeStaleStaging(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith('.publish-')) await rm(join(dir, name), { recursive: true, force: true });
  }
}
