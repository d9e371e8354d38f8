/**
 * `erase`: a job's content goes from the rows, from the bytes of the file, its WAL and its folder,
 * and from the published dataset; its billing facts stay, so the reports do not move; a later
 * sync (incremental or --full) does not bring the content back; `--on-delete erase` erases what a
 * --full run finds deleted upstream.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, test } from 'vitest';
import { syncDefaults } from '../../../src/config/sync-defaults.js';
import { DeletionGuardError, UpstreamError } from '../../../src/errors.js';
import { runPipeline } from '../../../src/pipeline.js';
import { type JobRecord, type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { eraseJobs } from '../../../src/store/erase.js';
import { acquireWriterLock } from '../../../src/store/file/writer-lock.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { backfilledCopies } from '../../helpers/backfilled.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { runMain } from '../../helpers/cli.js';
import { FakeListing, fakeResources } from '../../helpers/listing-fake.js';
import { copyMigrated } from '../../helpers/migrated-db.js';
import { searchDatabase } from '../../helpers/secret-search.js';
import { syncOnce } from '../../helpers/sync.js';
import { tempDir } from '../../helpers/tmp.js';

/** A phrase no generated transcript holds. */
const PHRASE = 'quokka-vermilion-PHRASE-58213';

/** The parts of a generated record the tests change. */
interface Editable {
  custom_metadata?: unknown;
  file?: { filename?: string } | null;
  result: {
    metadata: { billing_time: number };
    transcription: { full_transcript: string; utterances: { text: string; words: { word: string }[] }[] };
  };
}

function editable(record: JobRecord): Editable {
  return record as unknown as Editable;
}

/** The account's first done pre-recorded job: the one that says PHRASE. */
function phraseJob(sim: Simulator): string {
  const job = sim.data.all().find((r) => r['status'] === 'done' && r['kind'] === 'pre-recorded');
  if (!job) throw new Error('no done job');
  return String(job['id']);
}

/**
 * A simulator of 30 jobs of one month (a published partition per kind) whose first done job says
 * PHRASE in its transcript, file name and metadata; closed after the test.
 */
async function account(): Promise<{ sim: Simulator; id: string }> {
  const sim = await startSimulator({
    jobs: 30,
    seed: 11,
    utterancesPerJob: 3,
    wordsPerUtterance: 3,
    from: new Date('2026-10-02T00:00:00.000Z'),
    to: new Date('2026-10-30T00:00:00.000Z'),
  });
  onCleanup(() => sim.close());
  const id = phraseJob(sim);
  sim.data.edit(id, (r) => {
    const record = editable(r);
    record.custom_metadata = { customer: 'acme', email: `${PHRASE}@example.com` };
    const { transcription } = record.result;
    transcription.full_transcript = `my name is ${PHRASE} and this is private`;
    const [utterance] = transcription.utterances;
    if (utterance) {
      utterance.text = `my name is ${PHRASE}`;
      if (utterance.words[0]) utterance.words[0].word = PHRASE;
    }
    if (record.file) record.file.filename = `${PHRASE}.wav`;
  });
  return { sim, id };
}

/** The account's first sync, made once for the file's tests that begin with it. */
const backfilled = backfilledCopies(
  async () => (await account()).sim,
  (sim, db) => syncOnce(sim, db),
);

/** The account after its first sync: a copy of the synced file (mirror.duckdb) and a simulator. */
async function synced(): Promise<{ sim: Simulator; id: string; db: string }> {
  const { simulator, db } = await backfilled('mirror.duckdb');
  return { sim: simulator, id: phraseJob(simulator), db };
}

/** Files under `dir` (recursively) whose bytes hold PHRASE. */
function filesHolding(dir: string): string[] {
  const hits: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (readFileSync(path).toString('latin1').includes(PHRASE)) hits.push(path);
  }
  return hits;
}

/** Rows of the published dataset whose any column, as text, holds PHRASE. */
async function publishedRows(dir: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    let rows = 0;
    for (const table of ['jobs', 'utterances', 'words', 'module_results']) {
      const glob = join(dir, table, '**', '*.parquet').replaceAll("'", "''");
      const reader = await conn.runAndReadAll(
        `SELECT count(*) AS n FROM read_parquet('${glob}', hive_partitioning = true) t WHERE contains(CAST(t AS VARCHAR), $p)`,
        { p: PHRASE },
      );
      rows += Number(reader.getRowObjectsJS()[0]?.['n']);
    }
    return rows;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function reports(db: string): Promise<string[]> {
  const outputs: string[] = [];
  for (const args of [
    ['report', 'billing', '--group-by', 'model,kind', '--by', 'month'],
    ['report', 'billing', '--date', 'completed', '--by', 'day'],
    ['report', 'status'],
    ['report', 'latency'],
    ['report', 'errors'],
  ]) {
    const result = await runMain([...args, '--db', db, '--format', 'csv']);
    expect(result.code, result.stderr).toBe(0);
    outputs.push(result.stdout);
  }
  return outputs;
}

async function jobRow(db: string, id: string): Promise<Record<string, unknown>> {
  const reader = await openReadOnly(db);
  try {
    const [row] = await reader.all(
      'SELECT status, billing_time, audio_duration, languages, request_params, custom_metadata, erased_at, deleted_at, filename, full_transcript FROM jobs WHERE id = $id',
      { id },
    );
    return row ?? {};
  } finally {
    await reader.close();
  }
}

describe('erase', () => {
  test('the content goes from rows, bytes and the published dataset; billing facts and reports stay', async () => {
    const { sim, id } = await account();
    const dir = tempDir();
    const db = join(dir, 'mirror.duckdb');
    await copyMigrated(db);
    const published = join(dir, 'published');
    await syncOnce(sim, db, { publish: { dir: published, raw: true } });
    // The phrase is there to be found: in the rows, the file's bytes and the dataset.
    expect((await searchDatabase(db, PHRASE)).hits).toContain(`bytes of ${db}`);
    expect(await publishedRows(published)).toBeGreaterThan(0);
    const before = await reports(db);
    const facts = await jobRow(db, id);

    // Without --yes: what it would erase, and nothing done.
    const asked = await runMain(['erase', '--db', db, '--job', id]);
    expect(asked.code).toBe(2);
    expect(asked.stdout).toContain(`pre-recorded: would erase 1 job: ${id}`);
    expect(asked.stderr).toContain('--yes');
    expect((await jobRow(db, id))['erased_at']).toBeNull();

    const done = await runMain(['erase', '--db', db, '--job', id, '--yes']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`pre-recorded: erased 1 job: ${id}`);
    expect(done.stdout).toContain('rewritten without the erased bytes');

    const search = await searchDatabase(db, PHRASE);
    expect(search.columnsSearched).toBeGreaterThan(20);
    expect(search.hits).toEqual([]);
    expect(filesHolding(dir).filter((path) => !path.startsWith(published))).toEqual([]);
    const erased = await jobRow(db, id);
    expect(erased).toMatchObject({
      status: facts['status'],
      billing_time: facts['billing_time'],
      audio_duration: facts['audio_duration'],
      languages: facts['languages'],
      custom_metadata: null,
      filename: null,
      full_transcript: null,
      deleted_at: null,
    });
    expect(JSON.parse(String(erased['request_params']))).toEqual({
      model: JSON.parse(String(facts['request_params']))['model'],
    });
    expect(erased['erased_at']).toBeInstanceOf(Date);
    expect(await reports(db)).toEqual(before);
    const verify = await runMain(['verify', '--db', db]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const reader = await openReadOnly(db);
    try {
      const rows = await reader.all<{ selector: string; jobs: number; rewritten: boolean }>(
        'SELECT selector, jobs, rewritten_at IS NOT NULL AS rewritten FROM erasures',
      );
      expect(rows).toEqual([{ selector: 'job', jobs: 1, rewritten: true }]);
    } finally {
      await reader.close();
    }

    // The next publish rewrites the job's partitions; a later sync, unchanged upstream, or changed
    // upstream (its billing time corrected), or --full, brings no content back.
    sim.data.edit(id, (r) => {
      editable(r).result.metadata.billing_time = 4242;
    });
    // Changed beside it: the batch that holds it replaces other jobs too.
    for (const other of sim.data.all().filter((r) => r['id'] !== id)) {
      sim.data.edit(String(other['id']), (r) => (editable(r).custom_metadata = { edited: true }));
    }
    await syncOnce(sim, db, { publish: { dir: published, raw: true } });
    expect(await publishedRows(published)).toBe(0);
    expect(filesHolding(dir)).toEqual([]);
    await syncOnce(sim, db, { full: true, publish: { dir: published, raw: true } });
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
    expect(filesHolding(dir)).toEqual([]);
    expect(await jobRow(db, id)).toMatchObject({ billing_time: 4242, full_transcript: null });
  });

  test('--metadata and --before select; --erase-keep-metadata keeps a key billing groups by', async () => {
    const { sim, id, db } = await synced();
    const byCustomer = [
      'report',
      'billing',
      '--group-by',
      'metadata.customer',
      '--db',
      db,
      '--format',
      'csv',
    ];
    const before = await runMain(byCustomer);
    const done = await runMain([
      'erase',
      '--db',
      db,
      '--metadata',
      'customer=acme',
      '--before',
      new Date(Date.now() - 1000).toISOString(),
      '--erase-keep-metadata',
      'customer',
      '--yes',
      '--json',
    ]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ erased: 1, rewritten: true });
    expect((await jobRow(db, id))['custom_metadata']).toBe('{"customer":"acme"}');
    expect((await runMain(byCustomer)).stdout).toBe(before.stdout);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
    // Its record, changed upstream into one that fails validation, is not quarantined either.
    sim.data.edit(id, (r) => {
      r['status'] = 42;
    });
    await syncOnce(sim, db, { full: true });
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
    const reader = await openReadOnly(db);
    try {
      expect(await reader.all('SELECT selector, jobs FROM erasures')).toEqual([
        { selector: 'metadata+before', jobs: 1 },
      ]);
    } finally {
      await reader.close();
    }
  });

  test('a job known only by its quarantined record is erased, never quarantined again, and loads as erased', async () => {
    const { sim, id } = await account();
    const status = sim.data.get(id)?.['status'];
    // Invalid from the first listing: the job is never in `jobs`, only its record in the quarantine.
    sim.data.edit(id, (r) => {
      r['status'] = 42;
    });
    const db = join(tempDir(), 'mirror.duckdb');
    await copyMigrated(db);
    await syncOnce(sim, db);
    const quarantined = async () => {
      const listed = await runMain(['quarantine', 'list', '--db', db, '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      return (JSON.parse(listed.stdout) as { job_id: string | null }[]).map((r) => r.job_id);
    };
    const preRecorded = async () => {
      const status = await runMain(['status', '--db', db, '--json']);
      expect(status.code, status.stderr).toBe(0);
      const kinds = JSON.parse(status.stdout) as { kind: string; quarantined: number }[];
      return kinds.find((k) => k.kind === 'pre-recorded')?.quarantined;
    };
    expect(await quarantined()).toEqual([id]);
    expect(await preRecorded()).toBe(1);
    expect((await jobRow(db, id))['status']).toBeUndefined();
    expect(readFileSync(db).toString('latin1')).toContain(PHRASE);

    // Its raw record's custom_metadata selects it too.
    const asked = await runMain(['erase', '--db', db, '--metadata', 'customer=acme']);
    expect(asked.code).toBe(2);
    expect(asked.stdout).toBe(`pre-recorded: would erase 1 job: ${id}\n`);

    const done = await runMain(['erase', '--db', db, '--job', id, '--yes', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ erased: 1, rewritten: true });
    expect(await quarantined()).toEqual([]);
    expect(await preRecorded()).toBe(0);
    expect(readFileSync(db).toString('latin1')).not.toContain(PHRASE);
    const again = await runMain(['erase', '--db', db, '--job', id, '--yes']);
    expect(again.stdout).toBe('the job matching --job is erased already; nothing to erase\n');

    // Listed again, as invalid as before: not stored again.
    await syncOnce(sim, db);
    expect(await quarantined()).toEqual([]);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);

    // Valid upstream at last: the job loads with its billing facts only, and the file is rewritten.
    sim.data.edit(id, (r) => {
      r['status'] = status;
    });
    await syncOnce(sim, db, { full: true });
    expect(await jobRow(db, id)).toMatchObject({ status, full_transcript: null });
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
    expect(readFileSync(db).toString('latin1')).not.toContain(PHRASE);
    const reader = await openReadOnly(db);
    try {
      expect(
        await reader.all('SELECT selector, jobs, rewritten_at IS NOT NULL AS rewritten FROM erasures'),
      ).toEqual([
        { selector: 'job', jobs: 1, rewritten: true },
        { selector: 'erased-before', jobs: 1, rewritten: true },
      ]);
      expect(await reader.all('SELECT count(*)::INTEGER AS n FROM erased_quarantine')).toEqual([{ n: 0 }]);
      expect(
        await reader.all('SELECT erased_at IS NOT NULL AS erased FROM jobs WHERE id = $id', { id }),
      ).toEqual([{ erased: true }]);
    } finally {
      await reader.close();
    }
  });

  test('a selector that matches nothing says so, exits 0 and writes nothing', async () => {
    const { db } = await synced();
    const bytes = readFileSync(db);
    const { mtimeMs } = statSync(db);
    for (const args of [
      ['--job', 'no-such-job'],
      ['--metadata', 'customer=nobody'],
      ['--before', '2000-01-01'],
    ]) {
      const result = await runMain(['erase', '--db', db, ...args, '--yes']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^no job matches --\w+; nothing to erase\n$/);
    }
    expect(readFileSync(db).equals(bytes)).toBe(true);
    expect(statSync(db).mtimeMs).toBe(mtimeMs);
  });

  test('takes --format table|json as every command that prints a result does', async () => {
    const { db } = await synced();
    const args = ['erase', '--db', db, '--job', 'no-such-job'];
    const json = await runMain([...args, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ erased: 0, would_erase: 0, rewritten: false });
    expect(await runMain([...args, '--json'])).toMatchObject({ code: 0, stdout: json.stdout });
    const table = await runMain([...args, '--format', 'table']);
    expect(table.stdout).toBe('no job matches --job; nothing to erase\n');
  });

  test('an erasure whose rewrite did not happen is rewritten by the next erase, whatever it selects', async () => {
    const { id, db } = await synced();
    // As a Ctrl-C between the erasure's commit and the rename leaves the file.
    const writer = await openWriter(db);
    try {
      await eraseJobs(writer, { selection: { ids: [id] }, selector: 'job', keep: [] });
    } finally {
      await writer.close();
    }
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([`bytes of ${db}`]);
    const done = await runMain(['erase', '--db', db, '--job', 'no-such-job', '--yes']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('no job matches --job; nothing to erase');
    expect(done.stdout).toContain('rewritten without the erased bytes');
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
  });

  test('verify --repair keeps an erased job that breaks an invariant erased: sync --full loads nothing back', async () => {
    const { sim, id, db } = await synced();
    const erased = await runMain(['erase', '--db', db, '--job', id, '--yes']);
    expect(erased.code, erased.stderr).toBe(0);
    // A file whose erased job is stored twice (no key enforces jobs.id): verify's to find and repair.
    const writer = await openWriter(db);
    try {
      await writer.run('INSERT INTO jobs SELECT * FROM jobs WHERE id = $id', { id });
    } finally {
      await writer.close();
    }
    const repaired = await runMain(['verify', '--db', db, '--repair']);
    expect(repaired.code, repaired.stdout + repaired.stderr).toBe(0);
    expect(repaired.stderr).not.toContain('dropped');
    await syncOnce(sim, db, { full: true });
    expect((await jobRow(db, id))['erased_at']).toBeInstanceOf(Date);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
  });

  test('refuses while another writer holds the file, and waits for it with --lock-wait', async () => {
    const { id, db } = await synced();
    const lock = acquireWriterLock({ db, command: 'sync' });
    try {
      const refused = await runMain(['erase', '--db', db, '--job', id, '--yes', '--lock-wait', '0s']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('transcript-sync sync');
      expect((await jobRow(db, id))['erased_at']).toBeNull();
      const waiting = runMain(['erase', '--db', db, '--job', id, '--yes', '--lock-wait', '10s']);
      setTimeout(() => lock.release(), 300);
      const done = await waiting;
      expect(done.code, done.stderr).toBe(0);
      expect((await jobRow(db, id))['erased_at']).toBeInstanceOf(Date);
    } finally {
      lock.release();
    }
  });

  test('a malformed selector exits 2', async () => {
    const db = join(tempDir(), 'mirror.duckdb');
    for (const [args, says] of [
      [[], 'give the jobs to erase'],
      [['--metadata', 'customer'], 'KEY=VALUE'],
      [['--metadata', '=acme'], 'KEY=VALUE'],
      [['--before', 'yesterday'], 'ISO 8601'],
      [['--before', '2999-01-01'], 'future'],
      [['--job', ' '], 'empty'],
    ] as const) {
      const result = await runMain(['erase', '--db', db, ...args, '--yes']);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(says);
    }
  });

  test('--on-delete erase: a --full run erases the jobs the service deleted', async () => {
    const { sim, id, db } = await synced();
    sim.data.delete(id);
    await syncOnce(sim, db, { full: true, onDelete: 'erase' });
    expect(await jobRow(db, id)).toMatchObject({ full_transcript: null, filename: null });
    const row = await jobRow(db, id);
    expect(row['erased_at']).toBeInstanceOf(Date);
    expect(row['deleted_at']).toBeInstanceOf(Date);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
  });

  test('--on-delete erase: a --full run whose other kind the deletion guard fails still rewrites the file', async () => {
    const { sim, id, db } = await synced();
    const live = sim.data.all().filter((r) => r['kind'] === 'live');
    // More than the guard lets one run mark (10 jobs at least): the live kind fails, not retried.
    expect(live.length).toBeGreaterThan(10);
    sim.data.delete(id);
    for (const job of live) sim.data.delete(String(job['id']));
    await expect(syncOnce(sim, db, { full: true, onDelete: 'erase' })).rejects.toBeInstanceOf(
      DeletionGuardError,
    );
    expect((await jobRow(db, id))['erased_at']).toBeInstanceOf(Date);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
  });

  test('--on-delete erase: a --full run stopped after its erasures by a failure every kind meets still rewrites the file', async () => {
    const { sim, id, db } = await synced();
    sim.data.delete(id);
    // The live kind, walked after the erasing pre-recorded one, meets a refused key: the run stops.
    const refusing = new FakeListing(() => sim.data.all(), {
      beforePage: (list) => {
        if (list === 'live')
          throw new UpstreamError('the service answered 401', { retryable: false, status: 401 });
      },
    });
    const plan = { ...syncDefaults(), pageSize: 20, full: true, onDelete: 'erase' as const, publish: null };
    await expect(runPipeline(plan, fakeResources(db, refusing))).rejects.toBeInstanceOf(UpstreamError);
    expect((await jobRow(db, id))['erased_at']).toBeInstanceOf(Date);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
  });

  test('an erased job marked expired and listed again, changed, is restored as the run counts it', async () => {
    const { sim, id, db } = await synced();
    const DAY = 86_400_000;
    // A setting far shorter than the account keeps jobs: a reconcile takes every job for expired.
    await syncOnce(sim, db, { full: true, serviceRetention: 2 * DAY });
    const marks = async () => {
      const reader = await openReadOnly(db);
      try {
        const [row] = await reader.all<{ expired: boolean; deleted: boolean; erased: boolean }>(
          'SELECT expired_at IS NOT NULL AS expired, deleted_at IS NOT NULL AS deleted, erased_at IS NOT NULL AS erased FROM jobs WHERE id = $id',
          { id },
        );
        return row;
      } finally {
        await reader.close();
      }
    };
    expect(await marks()).toEqual({ expired: true, deleted: false, erased: false });
    const erased = await runMain(['erase', '--db', db, '--job', id, '--yes']);
    expect(erased.code, erased.stderr).toBe(0);
    // Its billing time corrected upstream; the setting right, the next reconcile lists it again.
    sim.data.edit(id, (r) => {
      editable(r).result.metadata.billing_time = 4242;
    });
    const relisted = await syncOnce(sim, db, { full: true });
    expect(relisted.outcome).toBe('ok');
    const pre = relisted.kinds.find((k) => k.kind === 'pre-recorded');
    // Every job of the kind was expired, and each is counted restored: this one too.
    expect(pre?.restored).toBe(sim.data.all().filter((r) => r['kind'] === 'pre-recorded').length);
    expect(await marks()).toEqual({ expired: false, deleted: false, erased: true });
    expect(await jobRow(db, id)).toMatchObject({ billing_time: 4242, full_transcript: null });
  });

  test('--on-delete mark (the default) keeps a deleted job whole', async () => {
    const { sim, id, db } = await synced();
    sim.data.delete(id);
    await syncOnce(sim, db, { full: true });
    const row = await jobRow(db, id);
    expect(row['deleted_at']).toBeInstanceOf(Date);
    expect(row['erased_at']).toBeNull();
    expect(String(row['full_transcript'])).toContain(PHRASE);
  });
});
