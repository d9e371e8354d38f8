import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveSettings } from '../../../src/config/resolve.js';
import { MEMORY_FLOOR, planMemory } from '../../../src/memory/budget.js';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { runMain } from '../../helpers/cli.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { expectMirror } from '../../helpers/mirror.js';
import { tempDir } from '../../helpers/tmp.js';

describe('the memory budget', () => {
  it('reads sizes with their unit, decimal or binary', () => {
    const memory = (text: string) => resolveSettings(['memory'], [], { memory: text }, {}).memory;
    expect(memory('512MB')).toBe(512e6);
    expect(memory('256MiB')).toBe(256 * 2 ** 20);
    expect(memory('1GB')).toBe(1e9);
    expect(memory('1.5gib')).toBe(1.5 * 2 ** 30);
    expect(resolveSettings(['memory'], [], {}, {}).memory).toBe(512e6);
    expect(resolveSettings(['memory'], [], {}, { TSYNC_MEMORY: '300MB' }).memory).toBe(300e6);
  });

  it('refuses what is not a size and a budget below the floor, naming where it came from', () => {
    expect(() => resolveSettings(['memory'], [], { memory: 'lots' }, {})).toThrow(/--memory: is not a size/);
    // A bare number is bytes (as --page-bytes reads it): far too little.
    expect(() => resolveSettings(['memory'], [], { memory: '512' }, {})).toThrow(/too little/);
    expect(() => resolveSettings(['memory'], [], {}, { TSYNC_MEMORY: '128MB' })).toThrow(
      /TSYNC_MEMORY: is too little: every command needs at least 192MB/,
    );
  });

  it('gives a smaller budget smaller pages, a smaller heap, fewer WAL bytes and a lower DuckDB limit', () => {
    const small = planMemory(256e6, 2);
    const large = planMemory(512e6, 2);
    const huge = planMemory(2e9, 2);
    expect(small.pageBytes).toBeLessThan(large.pageBytes);
    expect(small.heapBytes).toBeLessThan(large.heapBytes);
    expect(small.batchBytes).toBeLessThan(large.batchBytes);
    expect(small.duckdb.walAutocheckpoint).toBeLessThan(large.duckdb.walAutocheckpoint);
    // DuckDB's limit: what small commits leave between checkpoints, the open transaction (2.5 bytes
    // a JSON byte) and 32 MiB of work, well under the budget (114 MiB at 512 MB).
    expect(large.duckdb.memoryLimit).toBe(
      large.duckdb.walAutocheckpoint + large.commitBytes * 2.5 + 32 * 2 ** 20,
    );
    expect(Math.round(large.duckdb.memoryLimit / 2 ** 20)).toBe(114);
    // At least 96 MiB: enough to parse big records at small budgets.
    expect(small.duckdb.memoryLimit).toBe(96 * 2 ** 20);
    expect(small.duckdb.memoryLimit).toBeLessThan(large.duckdb.memoryLimit);
    for (const plan of [small, large, huge]) {
      expect(plan.duckdb.memoryLimit).toBeLessThan(plan.budget / 2);
      expect(plan.commitBytes * 2.5).toBeLessThanOrEqual(
        plan.duckdb.memoryLimit - plan.duckdb.walAutocheckpoint,
      );
      // A transaction of at least a batch is written straight into the file, so a commit carries more.
      expect(plan.commitBytes).toBeGreaterThan(plan.batchBytes);
      expect(plan.duckdb.walAutocheckpoint).toBeLessThan(plan.duckdb.memoryLimit);
      expect(plan.batchBytes).toBeGreaterThanOrEqual(plan.pageBytes);
      expect(plan.queueBytes).toBeGreaterThanOrEqual(plan.pageBytes);
    }
    // More fetchers share the same heap: each page gets smaller.
    expect(planMemory(512e6, 8).pageBytes).toBeLessThan(large.pageBytes);
    expect(() => planMemory(MEMORY_FLOOR - 1, 2)).toThrow(/--memory/);
  });
});

describe('transcript-sync sync --memory', () => {
  let sim: Simulator | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('refuses an impossible budget at start, in one line, with exit 2', async () => {
    const result = await runMain(['sync', '--memory', '100MB', '--db', join(tempDir(), 'x.duckdb')], {
      TSYNC_API_KEY: 'k',
      TSYNC_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('--memory')]);
    expect(result.stderr).toContain('at least 192MB');
  });

  it('mirrors every job, utterance and word exactly with --memory 256MB', { timeout: 180_000 }, async () => {
    // Records of ~250 kB (mostly padding, as huge translated transcripts are): several pages per
    // kind at the 256 MB budget's page size.
    sim = await startSimulator({
      preRecorded: 9,
      live: 6,
      seed: 15,
      utterancesPerJob: 4,
      wordsPerUtterance: 5,
      recordPadding: { bytes: 220_000 },
      from: new Date(Date.now() - 10 * 86_400_000),
      to: new Date(Date.now() - 3_600_000),
    });
    const db = await migratedDb('small-budget.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    const first = await runMain(['sync', '--memory', '256MB', '--db', db, '--page-size', '10'], env);
    expect(first.code, first.stderr).toBe(0);
    await expectMirror(db, sim.data.all());
    const full = await runMain(['sync', '--full', '--db', db], { ...env, TSYNC_MEMORY: '256MiB' });
    expect(full.code, full.stderr).toBe(0);
    await expectMirror(db, sim.data.all());
  });

  it('back-fills a second account into a stored history exactly with --memory 256MB', {
    timeout: 180_000,
  }, async () => {
    // A history of one account, then every job of another (other seed, same dates) into the same
    // file after `state reset`: the second back-fill classifies each page against what is stored.
    const account = (seed: number) =>
      startSimulator({
        preRecorded: 12,
        live: 8,
        seed,
        utterancesPerJob: 4,
        wordsPerUtterance: 5,
        from: new Date(Date.now() - 10 * 86_400_000),
        to: new Date(Date.now() - 3_600_000),
      });
    const db = await migratedDb('history.duckdb');
    sim = await account(21);
    const history = sim.data.all();
    const first = await runMain(['sync', '--db', db], { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey });
    expect(first.code, first.stderr).toBe(0);
    await sim.close();
    sim = await account(22);
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey, TSYNC_MEMORY: '256MB' };
    const reset = await runMain(['state', 'reset', '--kind', 'all', '--yes', '--db', db], env);
    expect(reset.code, reset.stderr).toBe(0);
    const second = await runMain(['sync', '--db', db, '--page-size', '10'], env);
    expect(second.code, second.stderr).toBe(0);
    await expectMirror(db, [...history, ...sim.data.all()]);
  });

  it('commits records of 8 MB every commitBytes of JSON, DuckDB under its limit', {
    timeout: 300_000,
  }, async () => {
    // 2 jobs of 8 MB at the smallest budget (192 MB): commitBytes is ~5.2 MB there, so a slice's
    // worth of these jobs (16 MB) is more than commitBytes and a record. By rows alone a slice made
    // one transaction; 60 such jobs in one ran DuckDB out of memory. The commit policy is the same
    // for both kinds: one kind is enough.
    sim = await startSimulator({
      preRecorded: 2,
      live: 0,
      seed: 16,
      utterancesPerJob: 4,
      wordsPerUtterance: 4,
      recordPadding: { bytes: 8_000_000 },
      from: new Date(Date.now() - 10 * 86_400_000),
      to: new Date(Date.now() - 3_600_000),
    });
    const db = await migratedDb('big-records.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey, TSYNC_LOG_LEVEL: 'debug' };
    const first = await runMain(['sync', '--db', db, '--memory', '192MB'], env);
    expect(first.code, first.stderr).toBe(0);
    await expectMirror(db, sim.data.all());
    const commits = first.stderr
      .split('\n')
      .filter((line) => line.includes('"transaction committed"'))
      .map((line) => (JSON.parse(line) as { json_bytes: number }).json_bytes);
    const { commitBytes } = planMemory(MEMORY_FLOOR, 2);
    const record = 8_100_000;
    expect(commits.reduce((a, b) => a + b, 0)).toBeGreaterThan(2 * 8_000_000);
    for (const bytes of commits) expect(bytes).toBeLessThan(commitBytes + record);
  });
});
