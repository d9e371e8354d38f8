import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCommandArgs } from '../../../src/cli/command.js';
import { command as quarantineCommand } from '../../../src/cli/commands/quarantine.js';
import { ConfigError } from '../../../src/errors.js';
import { quarantineRetry } from '../../../src/load/quarantine-retry.js';
import { contentHash } from '../../../src/normalize/page-records.js';
import type { Database } from '../../../src/store/database.js';
import { eraseJobs } from '../../../src/store/erase.js';
import { openWriter } from '../../../src/store/open-file.js';
import { quarantineList, upsertQuarantined } from '../../../src/store/statements/quarantine.js';
import { fixture } from '../../fixtures/fixtures.js';
import { loadRecords } from '../../helpers/load.js';
import { migratedDb } from '../../helpers/migrated-db.js';

const open: Database[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function freshDb(path?: string): Promise<Database> {
  const db = await openWriter(path ?? (await migratedDb('q.duckdb')));
  open.push(db);
  return db;
}

const syncedAt = new Date('2025-04-01T00:00:00.000Z');

/** A record that fails validation: its id and kind are readable, its status is not. */
function badRecord(): Record<string, unknown> {
  return { ...fixture('queued-pre-recorded'), status: 'paused' };
}

async function runCli(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out += chunk.toString();
      done();
    },
  });
  const { flags, positionals } = parseCommandArgs(quarantineCommand, argv);
  const code = await quarantineCommand.run({ flags, positionals, stdout, stderr: stdout, env: {} });
  return { code, out };
}

describe('quarantine', () => {
  it('stores a bad record whole while the rest of its batch loads', async () => {
    const db = await freshDb();
    const bad = badRecord();
    const result = await loadRecords(db, [fixture('done-live-messages'), bad, 42, 'not a job'], syncedAt);
    expect(result).toMatchObject({ inserted: 1, quarantined: 3 });
    const rows = await quarantineList(db);
    expect(rows).toHaveLength(3);
    const row = rows.find((r) => r.jobId === bad['id']);
    expect(row).toMatchObject({
      kind: 'pre-recorded',
      seenCount: 1,
      resolvedAt: null,
      rawHash: contentHash(JSON.stringify(bad)),
    });
    expect(JSON.parse(row?.raw ?? 'null')).toEqual(bad);
    expect(row?.errors).toEqual([{ path: 'status', message: expect.any(String) }]);
    const scalar = rows.find((r) => r.raw === '42');
    expect(scalar).toMatchObject({
      jobId: null,
      kind: null,
      errors: [{ path: '', message: expect.any(String) }],
    });
  });

  it('counts a bad record seen again instead of storing it twice', async () => {
    const db = await freshDb();
    await loadRecords(db, [badRecord()], syncedAt);
    await loadRecords(db, [badRecord()], new Date('2025-04-02T00:00:00.000Z'));
    const rows = await quarantineList(db);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      seenCount: 2,
      firstSeenAt: syncedAt.toISOString(),
      lastSeenAt: '2025-04-02T00:00:00.000Z',
    });
  });

  it('resolves the quarantined record of a job once a valid record of it loads', async () => {
    const db = await freshDb();
    await loadRecords(db, [badRecord()], syncedAt);
    await loadRecords(db, [fixture('queued-pre-recorded')], syncedAt);
    expect(await quarantineList(db)).toEqual([]);
    const all = await quarantineList(db, { includeResolved: true });
    expect(all[0]?.resolvedAt).toBe(syncedAt.toISOString());
  });

  it('erase selects a record of no stored job by its id, kind, custom_metadata or created_at, and keeps it out', async () => {
    const db = await freshDb();
    const { id: _id, ...noId }: Record<string, unknown> = {
      ...badRecord(),
      custom_metadata: { customer: 'acme' },
    };
    const unreadable = { ...badRecord(), id: 'unreadable-job', custom_metadata: 'acme', created_at: 'soon' };
    const other = { ...badRecord(), id: 'other-job' };
    await loadRecords(db, [badRecord(), noId, unreadable, other], syncedAt);
    const erase = (selection: Parameters<typeof eraseJobs>[1]['selection']) =>
      eraseJobs(db, { selection, selector: 'test', keep: [] });
    const listed = async () => (await quarantineList(db)).map((r) => r.jobId ?? r.rawHash).sort();
    // A record where custom_metadata or created_at cannot be read matches no --metadata or --before.
    expect(await erase({ metadata: { key: 'customer', value: 'acme' } })).toBe(1);
    expect(await erase({ before: new Date('2025-03-05T00:00:00.000Z'), kind: 'live' })).toBe(0);
    expect(
      await erase({ before: new Date('2025-03-05T00:00:00.000Z'), ids: [String(badRecord()['id'])] }),
    ).toBe(1);
    expect(await erase({ ids: [String(badRecord()['id'])] })).toBe(0);
    expect(await listed()).toEqual(['other-job', 'unreadable-job']);
    expect(await erase({ ids: ['unreadable-job'], kind: 'pre-recorded' })).toBe(1);
    // Seen again, or changed: none of the erased comes back; a record of another job still does.
    await loadRecords(db, [badRecord(), noId, { ...unreadable, status: 'held' }, other], new Date());
    expect(await listed()).toEqual(['other-job']);
    expect(
      await db.all('SELECT job_id, raw_hash IS NOT NULL AS hashed, kind FROM erased_quarantine ORDER BY 1'),
    ).toEqual([
      { job_id: String(badRecord()['id']), hashed: false, kind: 'pre-recorded' },
      { job_id: 'unreadable-job', hashed: false, kind: 'pre-recorded' },
      { job_id: null, hashed: true, kind: 'pre-recorded' },
    ]);
  });

  it('retry loads a record that validates now and leaves the still-failing ones with fresh errors', async () => {
    const db = await freshDb();
    const valid = fixture('done-pre-recorded-all-modules');
    const raw = JSON.stringify(valid);
    // As if an older version had rejected this valid record.
    await upsertQuarantined(db, {
      raw_hash: contentHash(raw),
      job_id: String(valid['id']),
      kind: 'pre-recorded',
      errors: JSON.stringify([{ path: 'result.foo', message: 'old rule' }]),
      raw,
      seen_at: syncedAt,
    });
    await loadRecords(db, [badRecord()], syncedAt);
    const outcome = await quarantineRetry(db, { now: new Date('2025-04-05T00:00:00.000Z') });
    expect(outcome).toEqual({ loaded: 1, stillFailing: 1 });
    const jobs = await db.all<{ id: string; raw: string }>(
      'SELECT id, raw::VARCHAR AS raw FROM jobs JOIN job_records ON job_id = id',
    );
    expect(jobs.map((j) => j.id)).toEqual([valid['id']]);
    expect(JSON.parse(jobs[0]?.raw ?? 'null')).toEqual(valid);
    const remaining = await quarantineList(db);
    expect(remaining.map((r) => r.jobId)).toEqual([badRecord()['id']]);
    expect(await quarantineRetry(db)).toEqual({ loaded: 0, stillFailing: 1 });
  });
});

describe('transcript-sync quarantine', () => {
  it('lists unresolved records as a table and as JSON, and --all adds resolved ones', async () => {
    const path = await migratedDb('cli.duckdb');
    const db = await freshDb(path);
    await loadRecords(db, [badRecord(), { ...fixture('error-pre-recorded'), kind: 'batch' }], syncedAt);
    await loadRecords(db, [fixture('queued-pre-recorded')], syncedAt);
    await db.close();
    const table = await runCli(['list', '--db', path]);
    expect(table.code).toBe(0);
    expect(table.out).toContain('0b9e4d3c-77aa-4c1f-8e2b-5d6f7a8b9c02');
    expect(table.out).toContain('kind: Invalid option');
    expect(table.out).not.toContain('6c1e7c2a-0f0b-4c55-9a43-1b0c7f0e0a01');
    const json = JSON.parse((await runCli(['list', '--db', path, '--json', '--all'])).out) as {
      job_id: string;
      raw: unknown;
    }[];
    expect(json.map((r) => r.job_id).sort()).toEqual([
      '0b9e4d3c-77aa-4c1f-8e2b-5d6f7a8b9c02',
      '6c1e7c2a-0f0b-4c55-9a43-1b0c7f0e0a01',
    ]);
    expect(json[0]?.raw).toBeTypeOf('object');
  });

  it('retry prints how many records loaded and how many still fail', async () => {
    const path = await migratedDb('cli.duckdb');
    const db = await freshDb(path);
    await loadRecords(db, [badRecord()], syncedAt);
    await db.close();
    const result = await runCli(['retry', '--db', path]);
    expect(result).toEqual({ code: 0, out: 'loaded 0 records; 1 still failing\n' });
  });

  it('refuses a missing or unknown action as a usage error', async () => {
    await expect(runCli([])).rejects.toBeInstanceOf(ConfigError);
    await expect(runCli(['purge'])).rejects.toThrow(/list.*retry/);
    expect(() => parseCommandArgs(quarantineCommand, ['list', '--bogus'])).toThrow(ConfigError);
  });
});
