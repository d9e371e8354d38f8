/**
 * The sync's decode thread (src/sync/decode-thread.ts) as the built program runs it: the thread
 * only exists compiled (dist/), so this file imports the engine from there. A backfill whose every
 * page is read in the thread mirrors the service as one read inline does; the thread reads a body
 * as the main thread does, reports a broken one as data, and fails what it held when it stops.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../src/simulator/index.js';
import { decodePage } from '../src/sync/page-rows.js';
import type { SyncOptions } from '../src/sync/types.js';
import { projectRoot } from '../src/util/paths.js';
import { expectMirror, readCount } from './helpers/mirror.js';
import { tempDir } from './helpers/tmp.js';

/** A module of the build, typed as its source. */
async function built<T>(path: string): Promise<T> {
  return (await import(pathToFileURL(join(projectRoot(), 'dist', path)).href)) as T;
}

const { runSync } = await built<typeof import('../src/sync/run.js')>('src/sync/run.js');
const { syncDefaults } =
  await built<typeof import('../src/sync/plan-defaults.js')>('src/sync/plan-defaults.js');
const threads = await built<typeof import('../src/sync/decode-thread.js')>('src/sync/decode-thread.js');

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function backfill(db: string, threadBytes: number, full = false): ReturnType<typeof runSync> {
  const options: SyncOptions = {
    ...syncDefaults(),
    baseUrl: sim!.url,
    apiKey: sim!.apiKey,
    db,
    full,
    redisPrefix: 'tsync-test',
    pageSize: 20,
    sliceJobs: 20,
    rateLimit: 10_000,
    anomalyPauseMs: 5,
    threadBytes,
  };
  return runSync(options, options);
}

/** One number per table that any differing row changes. */
const FINGERPRINTS = [
  'SELECT sum(hash(COLUMNS(* EXCLUDE (synced_at))) % 1000000007) + count(*) FROM jobs',
  'SELECT sum(hash(COLUMNS(*)) % 1000000007) + count(*) FROM utterances',
  'SELECT sum(hash(COLUMNS(*)) % 1000000007) + count(*) FROM words',
  'SELECT sum(hash(COLUMNS(*)) % 1000000007) + count(*) FROM module_results',
];

/** A list envelope of `records`, as the service sends it. */
function envelope(records: readonly unknown[]): Buffer {
  return Buffer.from(
    JSON.stringify({ first: null, current: null, next: '/v2/transcription?offset=9', items: records }),
  );
}

describe('the decode thread', () => {
  it('mirrors every job and word of a backfill read in the thread, through broken answers, as one read inline', async () => {
    sim = await startSimulator({
      preRecorded: 24,
      live: 12,
      seed: 17,
      utterancesPerJob: 12,
      wordsPerUtterance: 12,
      from: new Date(Date.now() - 10 * 86_400_000),
      to: new Date(Date.now() - 3_600_000),
      // Truncated and unparsable bodies are found broken in the thread and asked again.
      faults: { rate: 0.2, kinds: ['truncate', 'bad-json', '500'], seed: 3 },
    });
    const inThread = join(tempDir(), 'thread.duckdb');
    expect((await backfill(inThread, 0)).outcome).toBe('ok');
    await expectMirror(inThread, sim.data.all());
    // A --full run again: most pages now hold unchanged jobs, whose rows the loader leaves out of
    // the batches the thread sent (JobRows.only on revived rows), and two that changed.
    const [first, second] = sim.data.all();
    for (const job of [first, second])
      sim.data.edit(String(job?.id), (r) => (r.custom_metadata = { edited: true }));
    const again = await backfill(inThread, 0, true);
    expect(again.outcome).toBe('ok');
    expect(again.kinds.reduce((n, k) => n + k.updated, 0)).toBe(2);
    await expectMirror(inThread, sim.data.all());

    const inline = join(tempDir(), 'inline.duckdb');
    expect((await backfill(inline, Number.MAX_SAFE_INTEGER)).outcome).toBe('ok');
    // Every row alike, not only the facts expectMirror checks (synced_at is the run's own).
    for (const sql of FINGERPRINTS) expect(await readCount(inThread, sql)).toBe(await readCount(inline, sql));
  });

  it('reads a body into the rows the main thread reads, the anchor left out', async () => {
    sim = await startSimulator({ preRecorded: 6, live: 4, seed: 9 });
    const body = envelope(sim.data.all());
    const thread = new threads.DecodeThread(64 * 2 ** 20);
    try {
      const read = await thread.decode(Buffer.from(body), 1, undefined);
      const here = decodePage(body, 1);
      if (!read.ok || !here.ok) throw new Error('a well-formed body was found broken');
      expect(read.next).toBe(here.next);
      expect(read.value.ids).toEqual(here.value.ids);
      expect(read.value.firstCreatedAt).toEqual(here.value.firstCreatedAt);
      const { rows, ...batch } = read.value.batch;
      const { rows: hereRows, ...hereBatch } = here.value.batch;
      expect(batch).toEqual(hereBatch);
      expect(batch.jobs.size).toBe(9);
      expect(rows.jobs.orderedColumns()).toEqual(hereRows.jobs.orderedColumns());
      expect(rows.utterances.orderedColumns()).toEqual(hereRows.utterances.orderedColumns());
      expect(rows.modules.orderedColumns()).toEqual(hereRows.modules.orderedColumns());
      expect(rows.words.orderedColumns()).toEqual(hereRows.words.orderedColumns());
      expect(rows.words.rowCount).toBeGreaterThan(0);
    } finally {
      await thread.close();
    }
  });

  it('reports a body that is not JSON as data, and fails a page it held when it stops or the run aborts', async () => {
    const thread = new threads.DecodeThread(64 * 2 ** 20);
    try {
      expect(await thread.decode(Buffer.from('{"items": ['), 0, undefined)).toMatchObject({
        ok: false,
        problem: 'not-json',
      });
      const stop = new AbortController();
      const aborted = thread.decode(envelope([]), 0, stop.signal);
      stop.abort(new Error('stopping'));
      await expect(aborted).rejects.toThrow('stopping');

      const held = thread.decode(envelope([{ id: 'a' }]), 0, undefined);
      held.catch(() => {}); // observed below, after the close
      await thread.close();
      await expect(held).rejects.toMatchObject({ code: 'DECODE_THREAD' });
      // A new thread reads the next page.
      expect(await thread.decode(envelope([]), 0, undefined)).toMatchObject({
        ok: true,
        next: '/v2/transcription?offset=9',
      });
    } finally {
      await thread.close();
    }
  });
});
