/**
 * `mkdir -p`, one `mkdir` per missing folder from the top down, each run once: Node's recursive mkdir
 * retries a parent that exists when the child's says ENOENT, forever on /proc or /sys.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** The folders of `path` that do not exist yet, outermost first. */
function missingFolders(path: string): string[] {
  const missing: string[] = [];
  let dir = resolve(path);
  while (!existsSync(dir)) {
    missing.unshift(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return missing;
}

/** The error `mkdir -p` gives for a path that exists and is not a folder. */
function notAFolder(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EEXIST: file already exists, mkdir '${path}'`), {
    code: 'EEXIST',
    syscall: 'mkdir',
    path,
  });
}

function isExisting(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'EEXIST';
}

/**
 * Makes `path` and its missing parents (`mode` as the umask filters it; one made meanwhile is fine):
 * the outermost folder it made, undefined when `path` was there. Throws the first `mkdir` error.
 */
export function makeFolderSync(path: string, mode?: number): string | undefined {
  const missing = missingFolders(path);
  for (const dir of missing) {
    try {
      mkdirSync(dir, mode === undefined ? undefined : { mode });
    } catch (error) {
      if (!isExisting(error) || !statSync(dir).isDirectory()) throw error;
    }
  }
  const full = resolve(path);
  if (!statSync(full).isDirectory()) throw notAFolder(full);
  return missing[0];
}

/** makeFolderSync without blocking: the same folders, the same errors. */
export async function makeFolder(path: string, mode?: number): Promise<string | undefined> {
  const missing = missingFolders(path);
  for (const dir of missing) {
    try {
      await mkdir(dir, mode === undefined ? undefined : { mode });
    } catch (error) {
      if (!isExisting(error) || !(await stat(dir)).isDirectory()) throw error;
    }
  }
  const full = resolve(path);
  if (!(await stat(full)).isDirectory()) throw notAFolder(full);
  return missing[0];
}
