/**
 * `jobs` has no key (a key makes every checkpoint rewrite the history): jobs.id stays unique because
 * the loader is the only writer and replaces a job set-based. Proved here over the real simulator
 * and a real DuckDB file, where a job really does arrive more than once: pages that overlap, pages
 * retried, a run killed mid-batch and resumed (the next incremental run alone restores it exactly),
 * the same job in two slices. `verify` checks it all.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { openReadOnly, openWriter } from '../../src/store/open-file.js';
import { verifyFile } from '../../src/store/verify.js';
import { runMain } from '../helpers/cli.js';
import { loadRecords } from '../helpers/load.js';
import { expectMirror, readCount } from '../helpers/mirror.js';
import { startTranscriptSync } from '../helpers/storm/chaos.js';
import { mirrorDifferences } from '../helpers/storm/mirror-exact.js';
import { syncEnv } from '../helpers/storm/storm.js';
import { syncOnce } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** A simulator whose requests can be watched: `onRequest(n)` is called with the count so far. */
async function watchedSimulator(
  options: SimulatorOptions,
): Promise<{ sim: Simulator; hook: { onRequest?: (n: number) => void } }> {
  const hook: { onRequest?: (n: number) => void } = {};
  let requests = 0;
  const started = await startSimulator({
    seed: 31,
    utterancesPerJob: 3,
    wordsPerUtterance: 4,
    from: new Date(Date.now() - 5 * 86_400_000),
    to: new Date(Date.now() - 60_000),
    ...options,
    onRequest: () => hook.onRequest?.(++requests),
  });
  sim = started;
  return { sim: started, hook };
}

/** Every invariant of the file holds, and it mirrors the service exactly. */
async function expectUniqueMirror(s: Simulator, db: string): Promise<void> {
  const file = await openReadOnly(db);
  try {
    expect((await verifyFile(file, { hashes: true })).filter((r) => !r.ok)).toEqual([]);
  } finally {
    await file.close();
  }
  const records = s.data.all() as unknown as Record<string, unknown>[];
  expect(await mirrorDifferences(db, records, new Set(), 'exact')).toEqual([]);
}

describe('jobs.id unique without a key', () => {
  it('holds when pages overlap: jobs appear inside the walked window, shifting every offset', async () => {
    const { sim: s, hook } = await watchedSimulator({ preRecorded: 30, live: 20 });
    const db = join(tempDir(), 'overlap.duckdb');
    // After the 3rd request, 7 late-visible jobs land mid-window: the next pages repeat items.
    hook.onRequest = (n) => {
      if (n !== 3) return;
      for (let i = 0; i < 7; i++)
        s.data.add({
          kind: i % 2 ? 'live' : 'pre-recorded',
          status: 'done',
          createdAt: new Date(Date.now() - 2 * 86_400_000),
        });
    };
    const summary = await syncOnce(s, db, { pageSize: 7, concurrency: 1 });
    expect(summary.outcome).toBe('ok');
    const fetched = summary.kinds.reduce((n, k) => n + k.jobsFetched, 0);
    expect(fetched, 'some page must have repeated a job').toBeGreaterThan(50);
    await syncOnce(s, db, { pageSize: 7, full: true });
    await expectUniqueMirror(s, db);
  });

  it('holds when pages are retried after truncated bodies, resets and 5xx', async () => {
    const { sim: s } = await watchedSimulator({ preRecorded: 25, live: 15 });
    s.faults.retryAfter = '0';
    s.faults.setRandom({ rate: 0.35, kinds: ['500', '503', 'reset', 'truncate'], seed: 5 });
    const db = join(tempDir(), 'retried.duckdb');
    const first = await syncOnce(s, db, { pageSize: 9 });
    expect(
      first.kinds.reduce((n, k) => n + k.retries, 0),
      'no page was retried',
    ).toBeGreaterThan(0);
    s.faults.clear();
    await syncOnce(s, db, { pageSize: 9, full: true });
    await expectUniqueMirror(s, db);
  });

  it('holds when a run is SIGKILLed mid-batch and the next one resumes', { timeout: 60_000 }, async () => {
    const { sim: s, hook } = await watchedSimulator({ preRecorded: 24, live: 16, latencyMs: 5 });
    const db = join(tempDir(), 'killed.duckdb');
    const run = startTranscriptSync(['sync', '--db', db, '--concurrency', '2'], syncEnv(s));
    await new Promise<void>((resolve) => {
      hook.onRequest = (n) => n === 6 && resolve();
      void run.done.then(() => resolve());
    });
    run.child.kill('SIGKILL');
    const ended = await run.done;
    expect(ended.signal, 'the run must have been killed, not finished').toBe('SIGKILL');
    hook.onRequest = undefined;
    const partial = await openReadOnly(db);
    const [row] = await partial.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM jobs');
    await partial.close();
    expect(row?.n ?? 0).toBeLessThan(40);
    expect(
      await readCount(db, "SELECT count(*) FROM sync_runs WHERE outcome = 'running'"),
      'killed mid-run',
    ).toBe(1);
    // The next incremental run alone restores every job whole, once: nothing lost, nothing doubled.
    expect((await syncOnce(s, db, { pageSize: 10 })).outcome).toBe('ok');
    await expectMirror(db, s.data.all() as unknown as Record<string, unknown>[]);
    await syncOnce(s, db, { pageSize: 10, full: true });
    await expectUniqueMirror(s, db);
  });

  it('holds when the same job arrives in two slices and in separate transactions, in either order', async () => {
    const { sim: s, hook } = await watchedSimulator({ preRecorded: 20, live: 0 });
    const db = join(tempDir(), 'slices.duckdb');
    // Small slices walked in parallel; mid-walk a job of the newest slice moves (its record changes)
    // while an older slice is still walked, and the run's pending re-check sees it too.
    const newest = s.data.all()[0];
    hook.onRequest = (n) => {
      if (n === 4) s.data.edit(String(newest?.['id']), (r) => (r['custom_metadata'] = { moved: n }));
    };
    await syncOnce(s, db, { pageSize: 3, sliceJobs: 6, concurrency: 3 });
    // The same id in two batches of one run, each committed alone, the newer one last and first.
    const file = await openWriter(db);
    try {
      const record = s.data.all()[5] as unknown as Record<string, unknown>;
      const older = { ...record, custom_metadata: { version: 1 } };
      const newer = { ...record, custom_metadata: { version: 2 } };
      for (const batch of [[older], [newer], [newer, older], [older, newer]]) {
        await file.transaction(async () => {
          for (const item of batch) await loadRecords(file, [item]);
        });
      }
      const [row] = await file.all<{ n: number; v: string }>(
        `SELECT count(*)::INTEGER AS n, any_value(json_extract_string(raw, '$.custom_metadata.version')) AS v
         FROM jobs JOIN job_records ON job_id = id WHERE id = $id`,
        { id: String(record['id']) },
      );
      expect(row).toEqual({ n: 1, v: '2' });
    } finally {
      await file.close();
    }
    await syncOnce(s, db, { pageSize: 3, full: true });
    await expectUniqueMirror(s, db);
  });
});

describe('transcript-sync verify', () => {
  it('passes on a synced file, fails with the fix in one line on a broken one, and --repair + sync --full mend it', {
    timeout: 60_000,
  }, async () => {
    const { sim: s } = await watchedSimulator({ preRecorded: 12, live: 8 });
    const db = join(tempDir(), 'verify.duckdb');
    await syncOnce(s, db);
    const clean = await runMain(['verify', '--db', db, '--json']);
    expect(clean.code, clean.stderr).toBe(0);
    const checks = JSON.parse(clean.stdout) as { name: string; ok: boolean }[];
    expect(checks.length).toBeGreaterThanOrEqual(7);
    expect(checks.every((c) => c.ok)).toBe(true);

    // What a second writer could do: a job twice, an orphan word, a tampered raw, a job without
    // its record, a record of no job, a run twice.
    const file = await openWriter(db);
    const [job, recordless] = await file.all<{ id: string }>('SELECT id FROM jobs ORDER BY id LIMIT 2');
    await file.run('INSERT INTO jobs SELECT * FROM jobs WHERE id = $id', { id: String(job?.id) });
    await file.run(
      "INSERT INTO words (job_id, source, utterance_idx, word_idx, word) VALUES ('nobody', 'transcription', 0, 0, 'x')",
    );
    await file.run(
      "UPDATE job_records SET raw = json_object('tampered', true) WHERE job_id = (SELECT max(id) FROM jobs)",
    );
    await file.run('DELETE FROM job_records WHERE job_id = $id', { id: String(recordless?.id) });
    await file.run("INSERT INTO job_records VALUES ('nobody', now(), '{}')");
    await file.run('INSERT INTO sync_runs SELECT * FROM sync_runs LIMIT 1');
    await file.close();

    const quick = await runMain(['verify', '--db', db]);
    expect(quick.code).toBe(1);
    expect(quick.stderr).not.toContain('sha1');
    const broken = await runMain(['verify', '--db', db, '--hashes']);
    expect(broken.code).toBe(1);
    const line = broken.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('jobs.id is unique: 1 broken');
    expect(line).toContain('words belong to an utterance: 1 broken');
    expect(line).toContain('jobs.content_hash is the sha1 of job_records.raw: 1 broken');
    expect(line).toContain('job_records holds one record per job: 1 broken');
    expect(line).toContain('job_records belong to a job: 1 broken');
    expect(line).toContain('sync_runs unique on (run_id, kind): 1 broken');
    expect(line).toContain(
      'fix: run `transcript-sync verify --repair --hashes`, then `transcript-sync sync --full`',
    );
    expect(broken.stdout).toContain(String(job?.id));

    const status = await runMain(['status', '--db', db, '--json']);
    const kinds = JSON.parse(status.stdout) as { duplicate_ids: number }[];
    expect(kinds.reduce((n, k) => n + k.duplicate_ids, 0)).toBe(1);
    // The table view says it on stderr too (--json prints the rows only).
    expect((await runMain(['status', '--db', db])).stderr).toContain('1 duplicate job ids');

    const repaired = await runMain(['verify', '--db', db, '--repair', '--hashes']);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stderr).toContain('dropped 3 jobs');
    await syncOnce(s, db, { full: true });
    expect((await runMain(['verify', '--db', db, '--hashes'])).code).toBe(0);
    const after = await runMain(['status', '--db', db]);
    expect(after.stderr).not.toContain('duplicate');
    await expectUniqueMirror(s, db);
  });

  it('prints its help', async () => {
    const help = await runMain(['verify', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--repair');
    expect(help.stdout).toContain('--json');
  });
});
