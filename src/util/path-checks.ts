/**
 * Checks on a path the CLI writes or reads (--db, every output folder), run before anything opens or
 * makes it, so a wrong path fails at once with the fix instead of deep inside DuckDB or a sync. Kernel
 * pseudo-filesystems (/proc, /sys, /dev, but not the tmpfs /dev/shm) are refused: a read there can block
 * or never end. A parent that is a file is named as such, not as a permission problem.
 */
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { ConfigError, DatabaseError } from '../errors.js';

const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'] as const;
/** A tmpfs under a pseudo root: its files are real. */
const TMPFS_UNDER_DEV = '/dev/shm';

/** The path with its existing part's symlinks resolved (the rest may not exist yet). */
function realPathOfExisting(path: string): string {
  const full = resolve(path);
  const existing = nearestExisting(full);
  try {
    return join(realpathSync(existing), relative(existing, full));
  } catch {
    return full;
  }
}

/** A ConfigError (exit 2) for a path on /proc, /sys or /dev (but not /dev/shm). */
function assertNotPseudoFs(path: string, flag: string): void {
  const real = realPathOfExisting(path);
  if (real.startsWith(`${TMPFS_UNDER_DEV}/`)) return;
  const root = PSEUDO_ROOTS.find((r) => real === r || real.startsWith(`${r}/`));
  if (root) {
    throw new ConfigError(
      flag,
      `${path} is on ${root}, a kernel pseudo-filesystem that holds no real files; point ${flag} at a path on disk`,
    );
  }
}

/** `path` or its nearest ancestor that exists (the root when none does). */
function nearestExisting(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Whether the file starts with SQLite's header (DuckDB would try to load its sqlite extension). */
function isSqliteFile(path: string): boolean {
  let fd: number | undefined;
  try {
    if (!statSync(path).isFile()) return false;
    fd = openSync(path, 'r');
    const header = Buffer.alloc(16);
    readSync(fd, header, 0, 16, 0);
    return header.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Every open or lock of a database path checks it first (ConfigError, exit 2). */
export function assertDatabasePath(path: string): void {
  assertNotPseudoFs(path, '--db');
  const file = nearestExisting(dirname(resolve(path)));
  if (existsSync(file) && !statSync(file).isDirectory()) {
    throw new ConfigError('--db', `${file} is a file, not a directory, so ${path} cannot be created there`, {
      hint: 'point --db (TSYNC_DB) at a path inside a directory',
    });
  }
}

/**
 * What can be told of a database file before DuckDB sees it: a path that can hold no file is a
 * ConfigError, a SQLite file a DatabaseError.
 */
export function assertDatabaseFile(path: string): void {
  assertDatabasePath(path);
  let stat: Stats | undefined;
  try {
    stat = statSync(path);
  } catch {}
  if (stat !== undefined && !stat.isFile()) {
    const what = stat.isDirectory() ? 'a directory' : 'not a regular file (a pipe, socket or device)';
    throw new ConfigError('--db', `${path} is ${what}`, {
      hint: 'point --db (TSYNC_DB) at a DuckDB file, e.g. ./data/transcripts.duckdb',
    });
  }
  if (isSqliteFile(path)) {
    throw new DatabaseError(`${path} is a SQLite database, not a DuckDB one`, {
      path,
      hint: 'point --db (TSYNC_DB) at the DuckDB file transcript-sync writes (default ./data/transcripts.duckdb)',
    });
  }
}

/** The outermost folder above `path` that this user may not pass through (x permission), if any. */
function blockedFolder(path: string): string | undefined {
  const folders: string[] = [];
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    folders.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return folders.find((dir) => {
    try {
      accessSync(dir, constants.X_OK);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EACCES';
    }
  });
}

/**
 * The DatabaseError of a database `path` behind a folder this user may not enter, naming that folder
 * (a file there cannot even be seen to exist), or undefined when nothing above it is closed. `verb`
 * says what could not be done; `wanted` completes "point --db (TSYNC_DB) at ...".
 */
export function deniedFolderError(
  path: string,
  verb: 'read' | 'open',
  wanted: string,
  cause?: unknown,
): DatabaseError | undefined {
  const blocked = blockedFolder(path);
  if (blocked === undefined) return undefined;
  return new DatabaseError(`cannot ${verb} ${path}: permission denied on its folder ${blocked}`, {
    path,
    hint: `let this user enter that folder and those above it (x permission), or point --db (TSYNC_DB) at ${wanted}`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * A command that changes a file it did not make (`compact`, `verify --repair`, `state reset`) is refused
 * where there is none: a writer would create it empty. `nothing` says why there is nothing to do.
 */
export function assertFileExists(path: string, nothing: string): void {
  if (existsSync(path)) return;
  const denied = deniedFolderError(path, 'open', 'a file this user may write');
  if (denied) throw denied;
  throw new DatabaseError(`${path} does not exist yet`, {
    path,
    hint: `${nothing}; check --db (TSYNC_DB)`,
  });
}

/**
 * A ConfigError (exit 2) naming `flag` unless `dir` can hold the files a command writes: a folder this
 * user may write, or make (its nearest existing ancestor is one), made by the command when it first
 * writes. `wanted` completes "point FLAG at ...".
 */
export function assertOutputFolder(dir: string, flag: string, wanted = 'a writable directory'): void {
  assertNotPseudoFs(dir, flag);
  const existing = nearestExisting(dir);
  if (existsSync(existing) && !statSync(existing).isDirectory())
    throw new ConfigError(flag, `${existing} is a file, not a directory; point ${flag} at ${wanted}`);
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      flag,
      `cannot write to ${existing} (${code}); make it writable for this user or point ${flag} at ${wanted}`,
    );
  }
}

/** A ConfigError (exit 2) naming `flag` unless `dir` is a folder SQL may read files from (`query --read`). */
export function assertInputFolder(dir: string, flag: string): void {
  assertNotPseudoFs(dir, flag);
  const shown = dir.replace(/(.)\/+$/, '$1');
  let isFolder: boolean;
  try {
    isFolder = statSync(shown).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ConfigError(
        flag,
        `${shown} does not exist; give a folder that holds the files to read, e.g. one export --out or --publish wrote`,
      );
    }
    throw new ConfigError(
      flag,
      `cannot read ${shown} (${code ?? String(error)}); make it readable for this user`,
    );
  }
  if (!isFolder) {
    throw new ConfigError(
      flag,
      `${shown} is a file, not a folder; give the folder that holds it (SQL reads the files below ${flag} folders)`,
    );
  }
}

/** What the store names the files and folders it keeps beside a database `<db>`, after `<db>`. */
const STORE_SIBLING =
  /^\.(wal|lock|lock\.waiting|worker\.lock|(worker\.)?lock\.stale-.+|compact-tmp(\.wal)?|sock|tmp(-\d+)?)$/;

/** Where the store's files of `db` live: beside the path DuckDB opens and, for a symlink, its target. */
function storeLocations(db: string): { readonly dir: string; readonly base: string }[] {
  const given = join(realPathOfExisting(dirname(resolve(db))), basename(db));
  const real = realPathOfExisting(db);
  return [...new Set([given, real])].map((path) => ({ dir: dirname(path), base: basename(path) }));
}

/** Whether `a` and `b` are the same file by device and inode (a hard link); false when either is missing. */
function sameFile(a: Stats, b: string): boolean {
  try {
    const other = statSync(b);
    return other.dev === a.dev && other.ino === a.ino;
  } catch {
    return false;
  }
}

/**
 * A ConfigError (exit 2) naming `flag` when `target`, a path a command writes over or removes whole, is
 * the database `db`, a file or folder the store keeps beside it, or a folder that holds either: paths
 * compared once symlinks are followed where they exist, a file also by device and inode (a hard link).
 * `fix` completes the message, e.g. "write the result to another file".
 */
export function assertNotStoreFile(target: string, db: string, flag: string, fix: string): void {
  const real = realPathOfExisting(target);
  const refuse = (what: string) => new ConfigError(flag, `${target} ${what} (--db ${db}); ${fix}`);
  let stat: Stats | undefined;
  try {
    stat = statSync(real);
  } catch {}
  for (const { dir, base } of storeLocations(db)) {
    const file = join(dir, base);
    if (real === file || (stat?.isFile() && sameFile(stat, file))) throw refuse('is the database file');
    if (file.startsWith(`${real}${sep}`)) throw refuse(`holds the database file ${file}`);
    const siblings = (names: readonly string[]) =>
      names.filter((name) => name.startsWith(base) && STORE_SIBLING.test(name.slice(base.length)));
    if (dirname(real) === dir && siblings([basename(real)]).length > 0)
      throw refuse('is a file the store keeps beside the database');
    if (stat?.isFile() && stat.nlink > 1) {
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {}
      if (siblings(names).some((name) => sameFile(stat, join(dir, name))))
        throw refuse('is a file the store keeps beside the database');
    }
  }
}
