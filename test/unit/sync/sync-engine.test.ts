/**
 * The engine against an in-memory listing (test/helpers/listing-fake.ts) and a real DuckDB file:
 * no HTTP. The simulator over HTTP stays where the wire is the subject: sync.test.ts's back-fill,
 * hostile-listings.test.ts's byte budgets and offset caps, hostile-pages.test.ts, chaos.test.ts.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRunOptions, syncDefaults } from '../../../src/config/sync-defaults.js';
import { UpstreamError } from '../../../src/errors.js';
import { defaultSliceJobs } from '../../../src/extract/slices.js';
import { RecordLoader } from '../../../src/load/loader.js';
import { silentLogger } from '../../../src/log.js';
import { planMemory } from '../../../src/memory/budget.js';
import { HeapGuard } from '../../../src/memory/heap-guard.js';
import { generateDataset } from '../../../src/simulator/index.js';
import type { Database } from '../../../src/store/database.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { DuckDbCheckpointStore } from '../../../src/sync/checkpoints/duckdb-store.js';
import { EMPTY_CHECKPOINT } from '../../../src/sync/checkpoints/schema.js';
import { syncKind } from '../../../src/sync/kind-run.js';
import type { KindRunContext } from '../../../src/sync/kind-summary.js';
import { RetentionWatch, retentionEdges } from '../../../src/sync/retention.js';
import { runSync } from '../../../src/sync/run.js';
import { KindRunFailed } from '../../../src/sync/run-failures.js';
import type { Checkpoint, CheckpointStore, SyncPlan, SyncProgress } from '../../../src/sync/types.js';
import { accountData } from '../../helpers/account-data.js';
import { FakeListing, type FakeListingOptions, fakeResources } from '../../helpers/listing-fake.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { expectMirror } from '../../helpers/mirror.js';
import { tempDir } from '../../helpers/tmp.js';

type Json = Record<string, unknown>;

/** Small pages and slices: a back-fill of 50 jobs walks several slices of a few pages in parallel. */
const plan: SyncPlan = { ...syncDefaults(), pageSize: 5, sliceJobs: 10, concurrency: 3 };

/** 30 pre-recorded jobs and 20 live ones unless told, of two utterances of two words. */
function dataset(seed = 3, preRecorded = 30, live = 20): Json[] {
  return generateDataset({
    seed,
    preRecorded,
    live,
    utterancesPerJob: 2,
    wordsPerUtterance: 2,
  }) as Json[];
}

const opened: Database[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

/**
 * An empty file with the schema (test/helpers/migrated-db.ts): the failure test below needs a
 * fresh file for each of its requests, and the migrations are what none of the tests but the
 * back-fill's (which makes its file) is about.
 */
const freshFile = (): Promise<string> => migratedDb('kind.duckdb');

/** What syncKind needs, as runSync builds it, on a fresh file. */
async function kindContext(
  source: FakeListing,
): Promise<{ ctx: KindRunContext; store: DuckDbCheckpointStore }> {
  const db = await openWriter(await freshFile());
  opened.push(db);
  const memory = planMemory(plan.memory, plan.concurrency);
  const store = new DuckDbCheckpointStore(db);
  const startedAt = new Date();
  const ctx: KindRunContext = {
    db,
    loader: new RecordLoader(db),
    client: source,
    stores: [store],
    plan,
    memory,
    heap: new HeapGuard(memory.heapBytes),
    runId: 'engine-test',
    startedAt,
    retention: new RetentionWatch(
      retentionEdges(startedAt, plan.serviceRetention),
      plan.serviceRetention,
      silentLogger,
    ),
    tombstones: false,
    logger: silentLogger,
    signal: new AbortController().signal,
  };
  return { ctx, store };
}

/**
 * Three days of pre-recorded history, synced into a fresh file, whose queued and processing jobs
 * (`pendingIds`, at least two) are all the re-check's: younger than its limit, older than the window
 * a run walks again. Upstream (`settled`) each has since ended `done`, a record the loader replaces whole.
 */
async function pendingSettledUpstream() {
  const account = accountData({
    seed: 6,
    preRecorded: 20,
    live: 0,
    utterancesPerJob: 2,
    wordsPerUtterance: 2,
    from: new Date(Date.now() - 3 * 86_400_000),
    to: new Date(Date.now() - 3_600_000),
  });
  const stored = structuredClone(account.all()) as Json[];
  const pendingIds = stored
    .filter((r) => r['status'] === 'queued' || r['status'] === 'processing')
    .map((r) => String(r['id']));
  expect(pendingIds.length).toBeGreaterThan(1);
  for (const id of pendingIds) account.advance(id, 'done');
  const settled = structuredClone(account.all()) as Json[];
  const { ctx, store } = await kindContext(new FakeListing(stored));
  await syncKind(ctx, 'pre-recorded', EMPTY_CHECKPOINT);
  const checkpoint = (await store.load('pre-recorded')) ?? EMPTY_CHECKPOINT;
  return { settled, pendingIds, ctx, store, checkpoint };
}

/** A checkpoint store saved inside each transaction, whose `n`th save fails (and rolls that commit back). */
function failingCommit(n: number): CheckpointStore {
  let saves = 0;
  return {
    name: 'redis',
    phase: 'in-transaction',
    load: async () => null,
    save: async () => {
      if (++saves === n) throw new Error(`commit ${n} fails`);
    },
    close: async () => {},
  };
}

/** Fails the `n`th request with a retryable 503, as the client throws once its retries are spent. */
function failingAt(n: number, list?: string): FakeListingOptions {
  return {
    beforePage: (name, _params, request) => {
      if (request === n && (list === undefined || name === list)) {
        throw new UpstreamError('the service answered 503', { retryable: true, status: 503 });
      }
    },
  };
}

describe('the engine over an in-memory listing', () => {
  it('back-fills every kind into a mirror that matches the listing exactly, and leaves the source open', async () => {
    const records = dataset();
    const source = new FakeListing(records);
    const db = join(tempDir(), 'backfill.duckdb');
    const summary = await runSync(plan, fakeResources(db, source));
    expect(summary.outcome).toBe('ok');
    expect(summary.kinds.map((k) => [k.kind, k.inserted])).toEqual([
      ['pre-recorded', 30],
      ['live', 20],
    ]);
    // Each kind counts its own requests; the one before the file is created checks the service.
    expect(summary.kinds.reduce((n, k) => n + k.requests, 0)).toBe(source.stats.requests - 1);
    await expectMirror(db, records);
    expect(source.closed).toBe(false);

    // An incremental run after it finds nothing new and asks little.
    const before = source.stats.requests;
    const again = await runSync(plan, fakeResources(db, source));
    expect(again.kinds.map((k) => k.inserted + k.updated)).toEqual([0, 0]);
    expect(source.stats.requests - before).toBeLessThan(10);
  });

  it('commits by size, not at each slice end: one commit carries every slice a small back-fill walks', async () => {
    const records = dataset(5);
    const { ctx } = await kindContext(new FakeListing(records));
    // A store saved after each commit: what the run's commits claimed, in order.
    const saved: Checkpoint[] = [];
    const counting: CheckpointStore = {
      name: 'redis',
      phase: 'after-commit',
      load: async () => null,
      save: async (_kind, checkpoint) => {
        saved.push(checkpoint);
      },
      close: async () => {},
    };
    const run = await syncKind(
      { ...ctx, stores: [...ctx.stores, counting] },
      'pre-recorded',
      EMPTY_CHECKPOINT,
    );
    // 30 jobs, 10 a slice: three slices walked in parallel, far under a commit's size.
    expect(run.inserted).toBe(30);
    // The walk's commits, then the run's end (its summary, lastRun).
    const walk = saved.filter((checkpoint) => checkpoint.lastRun === null);
    expect(walk).toHaveLength(1);
    expect(walk[0]?.slice).toBeNull();
    expect(walk[0]?.watermark).toBe(saved.at(-1)?.lastRun?.windowBefore);
    await ctx.db.close();
    await expectMirror(
      ctx.db.path,
      records.filter((r) => r['kind'] === 'pre-recorded'),
    );
  });

  it('a writer that opens its file again after every commit leaves the same mirror', async () => {
    // Four pages of one kind and three of the other: each commit opens the file again.
    const records = dataset(7, 20, 15);
    const { ctx } = await kindContext(new FakeListing(records));
    // A commit after every load, and the file opened again after every commit; one page queued at a
    // time, so that each load is a page's.
    const reopening: KindRunContext = {
      ...ctx,
      memory: { ...ctx.memory, commitBytes: 1, reopenBytes: 1, queueBytes: 1 },
    };
    let reopens = 0;
    ctx.db.onReopen(async () => {
      reopens += 1;
    });
    await syncKind(reopening, 'pre-recorded', EMPTY_CHECKPOINT);
    await syncKind(reopening, 'live', EMPTY_CHECKPOINT);
    expect(reopens).toBeGreaterThan(4);
    // A --full walk opens the file again as often, and its seen ids outlive each reopen: only the
    // job upstream no longer lists is marked deleted, and the ids go at the walk's end.
    const gone = records.find((r) => r['kind'] === 'live');
    const listed = new FakeListing(records.filter((r) => r !== gone));
    const before = reopens;
    const full = await syncKind(
      { ...reopening, client: listed, plan: { ...plan, full: true } },
      'live',
      EMPTY_CHECKPOINT,
    );
    expect(full).toMatchObject({ mode: 'full', deleted: 1, inserted: 0 });
    expect(reopens - before).toBeGreaterThan(2);
    expect(await ctx.db.all('SELECT id FROM jobs WHERE deleted_at IS NOT NULL')).toEqual([
      { id: gone?.['id'] },
    ]);
    expect(await ctx.db.all("SELECT * FROM duckdb_tables() WHERE table_name = 'seen_ids'")).toEqual([]);
    await ctx.db.close();
    await expectMirror(
      ctx.db.path,
      records.filter((r) => r !== gone),
    );
  });

  it('commits what the re-check of pending jobs brought before the walk after it, which may fail', async () => {
    const { settled, ctx, checkpoint } = await pendingSettledUpstream();
    const watermark = Date.parse(String(checkpoint.watermark));
    // The re-check's windows end before the watermark; the walk after it asks up to it, and fails.
    const failing = new FakeListing(settled, {
      beforePage: (_list, params) => {
        if (params.beforeDate === undefined || new Date(params.beforeDate).getTime() >= watermark) {
          throw new UpstreamError('the service answered 503', { retryable: true, status: 503 });
        }
      },
    });
    const failure = await syncKind({ ...ctx, client: failing }, 'pre-recorded', checkpoint).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(KindRunFailed);
    expect((failure as KindRunFailed).summary.pendingRechecked).toBeGreaterThan(1);
    await ctx.db.close();
    await expectMirror(ctx.db.path, settled);
  });

  it("counts in a failed kind's summary only the pending re-checks it committed", async () => {
    const { settled, pendingIds, ctx, store, checkpoint } = await pendingSettledUpstream();
    // One window at a time, a commit after every load; the re-check's third commit fails.
    const failingThird = failingCommit(3);
    const committing: KindRunContext = {
      ...ctx,
      client: new FakeListing(settled),
      plan: { ...plan, concurrency: 1 },
      stores: [...ctx.stores, failingThird],
      memory: { ...ctx.memory, commitBytes: 1, queueBytes: 1 },
    };
    const failure = await syncKind(committing, 'pre-recorded', checkpoint).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(KindRunFailed);
    const { summary } = failure as KindRunFailed;
    const [rechecked] = await ctx.db.all<{ done: number }>(
      `SELECT count(*)::INTEGER AS done FROM jobs WHERE status = 'done' AND id IN (${pendingIds.map((id) => `'${id}'`).join(', ')})`,
    );
    // The first two commits re-checked some; the third's rolled back, and the run stopped there.
    expect(rechecked?.done).toBeGreaterThan(0);
    expect(rechecked?.done).toBeLessThan(pendingIds.length);
    expect(summary.pendingRechecked).toBe(rechecked?.done);
    const saved = await store.load('pre-recorded');
    expect(saved?.lastRun?.pendingRechecked).toBe(rechecked?.done);
  });

  it('a failed kind throws KindRunFailed with its summary and the cause, having saved only a committed watermark', async () => {
    // Two slices of three pages: the walk's every kind of request, in as few as it takes.
    const records = dataset(5, 20, 0);
    const preRecorded = records.filter((r) => r['kind'] === 'pre-recorded');
    const whole = await kindContext(new FakeListing(records));
    await syncKind(whole.ctx, 'pre-recorded', EMPTY_CHECKPOINT);
    const requests = whole.ctx.client.stats.requests;
    expect(requests).toBeGreaterThan(8);
    // Fail at every request of the walk: the first page, the probes, every slice's pages.
    for (let n = 1; n <= requests; n++) {
      const { ctx, store } = await kindContext(new FakeListing(records, failingAt(n)));
      const failure = await syncKind(ctx, 'pre-recorded', EMPTY_CHECKPOINT).catch((e: unknown) => e);
      expect(failure, `request ${n}`).toBeInstanceOf(KindRunFailed);
      const { summary, cause, retryable } = failure as KindRunFailed;
      expect(cause).toBeInstanceOf(UpstreamError);
      expect(retryable).toBe(true);
      expect(summary).toMatchObject({ kind: 'pre-recorded', outcome: 'failed', runId: 'engine-test' });
      expect(summary.error).toMatch(/503/);
      // The checkpoint's watermark claims no job the file lacks.
      const saved = await store.load('pre-recorded');
      expect(saved?.lastRun?.outcome).toBe('failed');
      const stored = new Set(
        (await ctx.db.all<{ id: string }>('SELECT id FROM jobs')).map((row) => String(row.id)),
      );
      const watermark = saved?.watermark ? Date.parse(saved.watermark) : Number.NEGATIVE_INFINITY;
      const claimed = preRecorded.filter((r) => Date.parse(String(r['created_at'])) < watermark);
      expect(
        claimed.filter((r) => !stored.has(String(r['id']))),
        `request ${n}`,
      ).toEqual([]);
    }
  });

  it("counts in a failed kind's summary only the loads it committed", async () => {
    // Four pages of five, a commit after every load; the third fails inside its transaction.
    const records = dataset(4, 20, 0);
    const { ctx } = await kindContext(new FakeListing(records));
    const failingThird = failingCommit(3);
    const committing: KindRunContext = {
      ...ctx,
      stores: [...ctx.stores, failingThird],
      memory: { ...ctx.memory, commitBytes: 1, queueBytes: 1 },
    };
    const failure = await syncKind(committing, 'pre-recorded', EMPTY_CHECKPOINT).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(KindRunFailed);
    const { summary } = failure as KindRunFailed;
    const [stored] = await ctx.db.all<{ jobs: number; words: number }>(
      'SELECT (SELECT count(*) FROM jobs)::INTEGER AS jobs, (SELECT count(*) FROM words)::INTEGER AS words',
    );
    // What the first two commits stored; the third's loads rolled back, and the walk stopped there.
    expect(stored?.jobs).toBeGreaterThan(0);
    expect(stored?.jobs).toBeLessThan(20);
    expect([summary.inserted, summary.words]).toEqual([stored?.jobs, stored?.words]);
  });

  it('runs the other kind when one kind fails, and reports both', async () => {
    const records = dataset(7);
    const source = new FakeListing(records, failingAt(3, 'pre-recorded'));
    const db = await freshFile();
    const summary = await runSync(plan, fakeResources(db, source));
    expect(summary.outcome).toBe('failed');
    expect(summary.kinds.map((k) => [k.kind, k.outcome])).toEqual([
      ['pre-recorded', 'failed'],
      ['live', 'ok'],
    ]);
    // The next run resumes and completes the mirror.
    const next = await runSync(plan, fakeResources(db, new FakeListing(records)));
    expect(next.outcome).toBe('ok');
    await expectMirror(db, records);
  });

  it('times each kind from its own start to its own end, in the summary, sync_runs and progress', async () => {
    const records = dataset(8);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    // Each pre-recorded page takes 20 ms more, so its run is long next to the gap between kinds.
    const source = new FakeListing(records, {
      beforePage: (list) => {
        if (list === 'pre-recorded') Atomics.wait(pause, 0, 0, 20);
      },
    });
    const db = await freshFile();
    const progress: SyncProgress[] = [];
    const summary = await runSync(plan, fakeResources(db, source, { onProgress: (p) => progress.push(p) }));
    const [pre, live] = summary.kinds;
    if (!pre || !live) throw new Error('expected both kinds');
    const ms = (iso: string) => Date.parse(iso);
    expect(ms(pre.finishedAt) - ms(pre.startedAt)).toBeGreaterThanOrEqual(20);
    expect(ms(live.startedAt)).toBeGreaterThanOrEqual(ms(pre.finishedAt));
    // The window of both is the run's: jobs created before the run started.
    expect(live.windowBefore).toBe(pre.windowBefore);
    const liveProgress = progress.filter((p) => p.kind === 'live').at(-1);
    expect(liveProgress?.elapsed).toBe(ms(live.finishedAt) - ms(live.startedAt));

    const reader = await openReadOnly(db);
    opened.push(reader);
    const rows = await reader.all<{ kind: string; started_at: Date; finished_at: Date }>(
      'SELECT kind, started_at, finished_at FROM sync_runs ORDER BY started_at',
    );
    expect(rows.map((r) => [r.kind, r.started_at.toISOString(), r.finished_at.toISOString()])).toEqual([
      ['pre-recorded', pre.startedAt, pre.finishedAt],
      ['live', live.startedAt, live.finishedAt],
    ]);
  });

  it('stops on the signal with what it committed, and the next run completes the mirror', async () => {
    const records = dataset(9);
    const stop = new AbortController();
    const source = new FakeListing(records, {
      beforePage: (_list, _params, request) => {
        // The seventh request of the walk.
        if (request === 7) stop.abort(new Error('SIGTERM'));
      },
    });
    const db = await freshFile();
    const summary = await runSync(plan, fakeResources(db, source, { signal: stop.signal }));
    expect(summary.outcome).toBe('interrupted');
    expect(summary.kinds.map((k) => [k.kind, k.outcome])).toEqual([['pre-recorded', 'interrupted']]);
    expect(summary.notStarted).toEqual(['live']);
    const next = await runSync(plan, fakeResources(db, new FakeListing(records)));
    expect(next.outcome).toBe('ok');
    await expectMirror(db, records);
  });

  it('a stop that comes as a slice ends leaves the other slices to the next run, not skipped', async () => {
    const records = dataset(9);
    // One fetcher, and slices of a page: the stop lands while the oldest slice's only page is
    // served, so the fetcher ends that slice and finds the signal before taking the next.
    const oneAtATime: SyncPlan = { ...plan, concurrency: 1, pageSize: 20, sliceJobs: 5 };
    const stop = new AbortController();
    let windowBefore: string | undefined;
    const source = new FakeListing(records, {
      beforePage: (list, params) => {
        if (list !== 'pre-recorded' || params.beforeDate === undefined) return;
        // The window's first page and its probes end at the run's start; a slice's walk below it.
        const before = new Date(params.beforeDate).toISOString();
        windowBefore ??= before;
        if ((params.limit ?? 0) > 1 && before !== windowBefore) {
          stop.abort(new Error('SIGINT'));
        }
      },
    });
    const db = await freshFile();
    const summary = await runSync(oneAtATime, fakeResources(db, source, { signal: stop.signal }));
    expect(stop.signal.aborted).toBe(true);
    expect(summary.outcome).toBe('interrupted');
    expect(summary.kinds.map((k) => [k.kind, k.outcome])).toEqual([['pre-recorded', 'interrupted']]);
    const next = await runSync(oneAtATime, fakeResources(db, new FakeListing(records)));
    expect(next.outcome).toBe('ok');
    await expectMirror(db, records);
  });
});

describe('the defaults of a run', () => {
  it("are the config's, as the CLI resolves them with no flag and no environment", () => {
    const env = { TSYNC_API_KEY: 'k', TSYNC_BASE_URL: 'http://127.0.0.1:1' };
    const { baseUrl, apiKey, db, logLevel, pageBytes, sliceJobs, ...cli } = resolveRunOptions({}, env);
    const { pageBytes: derivedPages, sliceJobs: derivedSlices, ...defaults } = syncDefaults();
    expect({ ...cli }).toEqual({ ...defaults });
    // The CLI resolves the derived two; the defaults leave them to the run, which derives the same.
    expect([derivedPages, derivedSlices]).toEqual([null, null]);
    expect(pageBytes).toBe(planMemory(defaults.memory, defaults.concurrency).pageBytes);
    expect(sliceJobs).toBe(defaultSliceJobs(defaults.pageSize));
  });
});
