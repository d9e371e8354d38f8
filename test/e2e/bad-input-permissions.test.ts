/**
 * Bad input that only file permissions make: the binary runs as a user they apply to (not root;
 * see helpers/cli-unprivileged.ts), and each failure is one line on stderr naming the fix, exit 1
 * (exit 2 for an output folder the user may not write, a setting to change), with the data
 * untouched. The other bad input runs in-process, in bad-input.test.ts.
 */
import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOneLine, NO_SERVICE, syncedTemplate } from '../helpers/bad-input.js';
import { giveToChild, grantRead, runCliUnprivileged } from '../helpers/cli-unprivileged.js';

const { copy: syncedDb, expectUntouched } = syncedTemplate();

/** A synced database in a folder only root may enter (`dir`), inside one the child may read (`home`). */
function behindClosedFolder(): { db: string; dir: string; home: string } {
  const db = syncedDb();
  const dir = join(db, '..');
  const home = join(dir, '..');
  grantRead(home);
  chmodSync(dir, 0o700);
  return { db, dir, home };
}

describe('runtime failures (exit 1) name the fix and leave the data untouched', () => {
  it('a database file that is read-only for the user', async () => {
    const db = syncedDb();
    const dir = join(db, '..');
    grantRead(join(dir, '..'));
    giveToChild(dir, 0o700);
    giveToChild(db, 0o400);
    const result = await runCliUnprivileged(['sync', '--db', db], NO_SERVICE, dir);
    expectOneLine(result, 1, db, 'permission denied', '--db');
    await expectUntouched(db);
  });

  it('a database in a directory that is read-only for the user (no room for the write-ahead log)', async () => {
    const db = syncedDb();
    const dir = join(db, '..');
    grantRead(join(dir, '..'));
    giveToChild(db, 0o600);
    giveToChild(dir, 0o500);
    try {
      const result = await runCliUnprivileged(['sync', '--db', db], NO_SERVICE, dir);
      expectOneLine(result, 1, dir, 'writable', '--db');
      await expectUntouched(db);
      // A new file there is refused the same way, before anything is created.
      const fresh = await runCliUnprivileged(['sync', '--db', join(dir, 'new.duckdb')], NO_SERVICE, dir);
      expectOneLine(fresh, 1, '--db');
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('a database the user may not read: status asks for read access, not a writable place', async () => {
    const db = syncedDb();
    const dir = join(db, '..');
    grantRead(join(dir, '..'));
    giveToChild(dir, 0o700);
    giveToChild(db, 0o200);
    const result = await runCliUnprivileged(['status', '--db', db], {}, dir);
    expectOneLine(result, 1, db, 'permission denied', 'readable');
    expect(result.stderr).not.toContain('writable');
  });

  it('a database in a folder the user may not enter: the readers name that folder', async () => {
    const { db, dir, home } = behindClosedFolder();
    for (const args of [['status'], ['query', 'SELECT 1'], ['report', 'billing']]) {
      const result = await runCliUnprivileged([...args, '--db', db], {}, home);
      expectOneLine(result, 1, db, `permission denied on its folder ${dir}`, '--db');
    }
    await expectUntouched(db);
  });

  it('a database in a folder the user may not enter: compact and erase name that folder too', async () => {
    const { db, dir, home } = behindClosedFolder();
    for (const args of [['compact'], ['erase', '--job', 'j', '--yes'], ['erase', '--job', 'j']]) {
      const result = await runCliUnprivileged([...args, '--db', db], {}, home);
      expectOneLine(result, 1, db, `permission denied on its folder ${dir}`, '--db');
      expect(result.stderr).not.toContain('does not exist');
    }
    await expectUntouched(db);
  });

  it('a database in a folder the user may not enter: sync names that folder, not its write-ahead log', async () => {
    const { db, dir, home } = behindClosedFolder();
    for (const path of [db, join(dir, 'new.duckdb'), join(dir, 'sub', 'new.duckdb')]) {
      const result = await runCliUnprivileged(['sync', '--db', path], NO_SERVICE, home);
      expectOneLine(result, 1, path, `permission denied on its folder ${dir}`, '--db');
      expect(result.stderr).not.toContain('write-ahead log');
    }
    expect(readdirSync(dir)).toEqual(['data.duckdb']);
    await expectUntouched(db);
  });
});

describe('an output folder the user may not write is a configuration mistake (exit 2) naming it', () => {
  it('export --out, query --out and sync --publish into it, or into a folder to make in it', async () => {
    const db = syncedDb();
    const dir = join(db, '..');
    grantRead(join(dir, '..'));
    giveToChild(dir, 0o700);
    giveToChild(db, 0o600);
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    giveToChild(locked, 0o500);
    try {
      for (const args of [
        ['export', '--out', locked],
        ['export', '--out', join(locked, 'export')],
        ['query', 'SELECT 1', '--out', join(locked, 'r.csv')],
        ['sync', '--publish', join(locked, 'published')],
      ]) {
        const result = await runCliUnprivileged([...args, '--db', db], NO_SERVICE, dir);
        expectOneLine(result, 2, `cannot write to ${locked}`, args.includes('sync') ? '--publish' : '--out');
      }
      expect(readdirSync(locked)).toEqual([]);
      await expectUntouched(db);
    } finally {
      chmodSync(locked, 0o700);
    }
  });
});
