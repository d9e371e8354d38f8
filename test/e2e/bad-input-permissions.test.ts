/**
 * Bad input that only file permissions make: the binary runs as a user they apply to (not root;
 * see helpers/cli-unprivileged.ts), and each failure is one line on stderr naming the fix, exit 1,
 * with the data untouched. The other bad input runs in-process, in bad-input.test.ts.
 */
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectOneLine, NO_SERVICE, syncedTemplate } from '../helpers/bad-input.js';
import { giveToChild, grantRead, runCliUnprivileged } from '../helpers/cli-unprivileged.js';

const { copy: syncedDb, expectUntouched } = syncedTemplate();

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
});
