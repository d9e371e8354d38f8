/**
 * Writes a file so that a reader sees the old content or the new, never a part: the content goes
 * to a temporary file in the same directory (same file system, so rename is atomic), is flushed to
 * disk, then renamed over the target. A file whose content is already the same is left alone, so
 * its mtime keeps saying when its figures last changed.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeFolder } from '../../util/make-folder.js';

/** Whether it wrote: not when the file already held text `same` takes for `content`. */
export async function writeFileIfChanged(
  path: string,
  content: string,
  same: (current: string, next: string) => boolean,
): Promise<boolean> {
  const current = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (current !== undefined && same(current, content)) return false;
  await writeFileAtomic(path, content);
  return true;
}

export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await makeFolder(dirname(path));
  await replaceFileAtomic(path, async (temp) => {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/**
 * The same for content another writer makes (DuckDB writing Parquet): `write` creates the
 * temporary file it is given, which is renamed over `path` once it returns. The folder must exist.
 */
export async function replaceFileAtomic(path: string, write: (temp: string) => Promise<void>): Promise<void> {
  // A dot name so that a reader listing the directory for reports skips a file in flight.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await write(temp);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
