/**
 * A listing service that misbehaves in ways a real one can: huge records, many jobs
 * sharing one created_at, the deletion guard, an offset cap, --since. The cases of bytes on the
 * wire, offset caps and --since run the engine over HTTP against the simulator, which serves the
 * behaviour as a fault or a data option; those of timestamp ties and the deletion guard are the
 * engine's alone and run over an in-memory listing (test/helpers/listing-fake.ts) of the same
 * account. Pages that contradict themselves (empty, short, a total that shrinks under the walk)
 * are hostile-pages.test.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ResponseTooLargeError } from '../../../src/errors.js';
import { ListingClient } from '../../../src/extract/index.js';
import { backfilledCopies } from '../../helpers/backfilled.js';
import { account, deletedCount, listQueries, preRecordedOnly, recent, start } from '../../helpers/hostile.js';
import { FakeListing, syncFake } from '../../helpers/listing-fake.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { actualFacts, expectMirror } from '../../helpers/mirror.js';
import { syncOnce } from '../../helpers/sync.js';

/**
 * 20 pre-recorded jobs in one window for the whole file, so every simulator of it serves the same
 * records: the account of the tests that begin with its back-fill, made once for them
 * (test/helpers/backfilled.ts).
 */
const SMALL = { preRecorded: 20, live: 0, ...recent() };
const backfilledSmall = backfilledCopies(
  () => start(SMALL),
  (simulator, db) => syncOnce(simulator, db, preRecordedOnly),
);

describe('huge records', () => {
  it('never asks for more than the byte budget allows, from the first request on', async () => {
    // 6 records of ~100 kB: a first page of --page-size 20 would be 600 kB; the budget is 256 KiB.
    const s = await start({ preRecorded: 6, live: 0, recordPadding: { bytes: 100_000 } });
    const db = await migratedDb('huge.duckdb');
    const summary = await syncOnce(s, db, { ...preRecordedOnly, pageBytes: 256 * 2 ** 10 });
    expect(summary.outcome).toBe('ok');
    const limits = listQueries(s).map((q) => Number(q.get('limit')));
    // 256 KiB at an assumed 1 MiB a record: one item first, then what 256 KiB fits (2, plus the overlap).
    expect(limits[0]).toBe(1);
    expect(Math.max(...limits)).toBeLessThanOrEqual(3);
    await expectMirror(db, s.data.all());
  });

  it('asks a small first page again at the size learned: a window of small jobs needs no probes', async () => {
    const s = await start({ preRecorded: 12, live: 0 });
    const db = await migratedDb('small.duckdb');
    // 8 MiB pages (the default budget's are smaller): 8 items assumed at 1 MiB each, then 100.
    await syncOnce(s, db, { ...preRecordedOnly, pageSize: 100, pageBytes: 8 * 2 ** 20 });
    expect(listQueries(s).map((q) => q.get('limit'))).toEqual(['8', '100']);
    await expectMirror(db, s.data.all());
  });

  it('stops reading an answer past the budget and asks again with a smaller limit', async () => {
    // Small records first teach the sizer a whole page of 20 fits; then the huge ones come.
    const s = await start({ preRecorded: 0, live: 0 });
    for (let i = 0; i < 20; i++) {
      const record = s.data.add({
        kind: 'pre-recorded',
        status: 'done',
        createdAt: new Date(Date.now() - 7_200_000 - i * 1_000),
      });
      if (i >= 10) s.data.edit(String(record['id']), (r) => (r['annotations'] = 'x'.repeat(40_000)));
    }
    const db = await migratedDb('abandoned.duckdb');
    const summary = await syncOnce(s, db, { ...preRecordedOnly, pageSize: 20, pageBytes: 256 * 2 ** 10 });
    expect(summary.outcome).toBe('ok');
    const asked = listQueries(s).map((q) => [Number(q.get('offset')), Number(q.get('limit'))] as const);
    // Some offset was asked twice, the second time for fewer items.
    const again = asked.filter(([offset], i) => asked.slice(0, i).some(([o]) => o === offset));
    expect(again.length).toBeGreaterThan(0);
    await expectMirror(db, s.data.all());
  });

  it('the client abandons a body past maxBytes instead of reading it to its end', async () => {
    const s = await start({ preRecorded: 20, live: 0, recordPadding: { bytes: 100_000 } });
    const client = new ListingClient({ baseUrl: s.url, apiKey: s.apiKey, rateLimit: 1_000 });
    try {
      const failure = await client
        .getPage('pre-recorded', { limit: 20 }, { maxBytes: 300_000 })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ResponseTooLargeError);
      expect(client.stats.bytes).toBeLessThanOrEqual(300_000);
      expect(client.stats.retries).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('counts a body without content-length as it streams in and stops past maxBytes', async () => {
    // 40 chunks of 50 kB (2 MB in all), sent as they are asked for, with no content-length.
    const chunk = Buffer.alloc(50_000, 0x20);
    let written = 0;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = (): void => {
        while (written < 40 && res.write(chunk)) written += 1;
        if (written >= 40) res.end();
      };
      res.on('drain', () => {
        written += 1;
        more();
      });
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new ListingClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', rateLimit: 1_000 });
    try {
      const failure = await client
        .getPage('pre-recorded', { limit: 20 }, { maxBytes: 300_000 })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ResponseTooLargeError);
      expect((failure as ResponseTooLargeError).bytes).toBeGreaterThan(300_000);
      // Read up to the budget and the chunk that crossed it, not the 2 MB.
      expect(client.stats.bytes).toBeLessThan(1_000_000);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a record above the record ceiling fails its kind with the setting to raise; the other kind syncs', async () => {
    const s = await start({
      preRecorded: 3,
      live: 12,
      recordPadding: { kind: 'pre-recorded', bytes: 1_500_000 },
    });
    const db = await migratedDb('ceiling.duckdb');
    const failure = await syncOnce(s, db, { pageBytes: 256 * 2 ** 10, maxRecordBytes: 2 ** 20 }).catch(
      (error: unknown) => error as Error & { syncSummary?: { kinds: { kind: string; outcome: string }[] } },
    );
    expect(failure).toBeInstanceOf(ResponseTooLargeError);
    expect((failure as ResponseTooLargeError).toLine()).toMatch(/--max-record-bytes/);
    expect((failure as ResponseTooLargeError).toLine()).not.toMatch(/\n/);
    const outcomes = Object.fromEntries(
      (
        (failure as { syncSummary?: { kinds: { kind: string; outcome: string }[] } }).syncSummary?.kinds ?? []
      ).map((k) => [k.kind, k.outcome]),
    );
    expect(outcomes).toEqual({ 'pre-recorded': 'failed', live: 'ok' });
    const stored = await actualFacts(db);
    expect(Object.keys(stored.jobs)).toHaveLength(12);
  });
});

describe('timestamp ties', () => {
  it('re-checks every pending job of a timestamp shared by more jobs than a page holds', async () => {
    // 13 jobs of one instant, pages of at most 5: the instant's window takes three pages.
    const data = account({ preRecorded: 0, live: 0 });
    const source = new FakeListing(() => data.all(), { limitCap: 5 });
    const createdAt = new Date(Date.now() - 3_600_000);
    for (let i = 0; i < 13; i++) {
      data.add({ kind: 'pre-recorded', status: i < 4 ? 'processing' : 'done', createdAt });
    }
    const db = await migratedDb('ties.duckdb');
    expect((await syncFake(source, db, { ...preRecordedOnly, pageSize: 100 })).outcome).toBe('ok');
    for (const record of data.all().filter((r) => r['status'] === 'processing')) {
      data.advance(String(record['id']), 'done');
    }
    const summary = await syncFake(source, db, { ...preRecordedOnly, pageSize: 100 });
    expect(summary.outcome).toBe('ok');
    await expectMirror(db, data.all());
  });

  it('asks for pending jobs a page apart one by one, and for close ones in one window', async () => {
    const data = account({ preRecorded: 0, live: 0 });
    const source = new FakeListing(() => data.all());
    // Older than the window: four queued jobs with 10 done ones between each two (a page of 10
    // apart), then six queued ones a second apart with nothing between.
    let at = Date.now() - 3_600_000;
    const add = (status: 'queued' | 'done') => {
      at -= 1_000;
      data.add({ kind: 'pre-recorded', status, createdAt: new Date(at) });
    };
    for (let lone = 0; lone < 4; lone++) {
      add('queued');
      for (let i = 0; i < 10; i++) add('done');
    }
    for (let close = 0; close < 6; close++) add('queued');
    const db = await migratedDb('pending-windows.duckdb');
    const paging = { ...preRecordedOnly, pageSize: 10, pageBytes: 8 * 2 ** 20 };
    await syncFake(source, db, paging);
    const from = source.asked.length;
    for (const record of data.all().filter((r) => r['status'] === 'queued')) {
      data.advance(String(record['id']), 'done');
    }
    const summary = await syncFake(source, db, paging);
    expect(summary.kinds[0]?.pendingRechecked).toBe(10);
    const ms = (date: Date | string | undefined) =>
      date === undefined ? Number.NaN : new Date(date).getTime();
    const spans = source.asked
      .slice(from)
      .map(({ params }) => params)
      .filter((p) => p.afterDate !== undefined && ms(p.beforeDate) < Date.now() - 1_800_000)
      .map((p) => ms(p.beforeDate) - ms(p.afterDate));
    // One ±1 ms window for each lone job, one window of five seconds for the six close ones.
    expect(spans.filter((span) => span === 2)).toHaveLength(4);
    expect(spans.filter((span) => span > 2)).toEqual([5_002]);
    await expectMirror(db, data.all());
  });
});

describe('the deletion guard of --full', () => {
  it('marks nothing and fails when more than --max-delete-share would go; marks them when allowed', async () => {
    // 110 jobs: the default share (0.1) allows 11, more than the floor of 10; 12 go. Jobs of one
    // utterance of one word: the guard counts jobs, not their transcripts.
    const data = account({ preRecorded: 110, live: 0, utterancesPerJob: 1, wordsPerUtterance: 1 });
    const source = new FakeListing(() => data.all());
    const db = await migratedDb('guard.duckdb');
    const paging = { ...preRecordedOnly, pageSize: 100 };
    await syncFake(source, db, paging);
    for (const record of data.all().slice(0, 12)) data.delete(String(record['id']));
    const refused = await syncFake(source, db, { ...paging, full: true }).catch(
      (error: unknown) => error as Error,
    );
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/would mark 12 of 110 stored jobs deleted/);
    expect(await deletedCount(db)).toBe(0);
    const allowed = await syncFake(source, db, { ...paging, full: true, maxDeleteShare: 1 });
    expect(allowed.kinds[0]?.deleted).toBe(12);
    await expectMirror(db, data.all());
  });

  it('lets a few deletions through in a small mirror (at least 10 jobs)', async () => {
    const { simulator: s, db } = await backfilledSmall('small.duckdb');
    for (const record of s.data.all().slice(0, 6)) s.data.delete(String(record['id']));
    const summary = await syncOnce(s, db, { ...preRecordedOnly, full: true });
    expect(summary.kinds[0]?.deleted).toBe(6);
  });
});

describe('offset caps', () => {
  it('plans slices below a cap on offsets and mirrors everything', async () => {
    const s = await start({ preRecorded: 40, live: 0, offsetCap: 16 });
    const db = await migratedDb('capped.duckdb');
    const summary = await syncOnce(s, db, { ...preRecordedOnly, pageSize: 5, sliceJobs: 10 });
    expect(summary.outcome).toBe('ok');
    expect(s.log.some((e) => e.status === 400)).toBe(true);
    await expectMirror(db, s.data.all());
  });

  it('names the cap and --slice-jobs when even one slice goes deeper', async () => {
    const s = await start({ preRecorded: 40, live: 0, offsetCap: 16 });
    const db = await migratedDb('too-deep.duckdb');
    const summary = await syncOnce(s, db, { ...preRecordedOnly, pageSize: 5, sliceJobs: 25 });
    expect(summary.outcome).toBe('failed');
    expect(summary.kinds[0]?.error).toMatch(/caps offsets/);
    expect(summary.kinds[0]?.error).toMatch(/--slice-jobs/);
    expect(summary.kinds[0]?.error).not.toMatch(/check the filters|kept changing/);
  });
});

describe('--since on a file with data', () => {
  it('moves the window back to it, never forward', async () => {
    const { simulator: s, db } = await backfilledSmall('since.duckdb');
    const since = new Date(Date.now() - 2 * 86_400_000);
    let from = s.log.length;
    await syncOnce(s, db, { ...preRecordedOnly, since });
    const afterDates = listQueries(s, from).map((q) => q.get('after_date'));
    expect(afterDates).toContain(new Date(since.getTime() - 1).toISOString());
    // A --since later than the watermark leaves the window where the watermark puts it.
    from = s.log.length;
    await syncOnce(s, db, { ...preRecordedOnly, since: new Date(Date.now() - 1_000) });
    const starts = listQueries(s, from).map((q) => Date.parse(q.get('after_date') ?? ''));
    expect(Math.min(...starts)).toBeLessThan(Date.now() - 10 * 60_000);
  });
});
