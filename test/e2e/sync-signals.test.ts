/**
 * Ctrl-C on the real process (bin over dist/): the first SIGINT commits what was fetched, records
 * the run as interrupted, says that a sync again resumes, and exits 130; a second one quits at once
 * where it can (main.ts binds the command's `exit` to process.exit), still 130. SIGTERM stops it
 * alike, exiting 143 (128 + 15, as a shell reports it). The handlers are the process's: spawned, e2e.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { openReadOnly } from '../../src/store/open-file.js';
import { shownLines, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function slowSync(): Promise<{ db: string; cli: ReturnType<typeof startCli> }> {
  // Slow answers keep the run busy long after the signal: a clean stop waits for none of them.
  // One short utterance a job: the test looks at the stop, not at the words loaded before it.
  sim = await startSimulator({
    preRecorded: 200,
    live: 100,
    utterancesPerJob: 1,
    wordsPerUtterance: 2,
    seed: 9,
    latencyMs: 400,
  });
  const db = join(tempDir(), 'interrupted.duckdb');
  const cli = startCli(['sync', '--db', db, '--page-size', '10', '--json'], {
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_RATE_LIMIT: '1000',
    TSYNC_LOG_LEVEL: 'debug',
  });
  await cli.output(/window planned/);
  return { db, cli };
}

describe('sync and Ctrl-C', () => {
  it('a SIGINT commits, records the run as interrupted, lists the kind never started and exits 130', async () => {
    const { db, cli } = await slowSync();
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain('SIGINT: committing what was fetched, then stopping');
    // The signal came during pre-recorded: live, asked for too, is named in the summary.
    const shown = shownLines(result.stderr).join('\n');
    expect(shown).toMatch(/^pre-recorded: INTERRUPTED.*; run `transcript-sync sync` again to resume/m);
    expect(shown).toMatch(/^live: not started/m);
    const summary = JSON.parse(result.stdout) as { kinds: { kind: string }[]; not_started: string[] };
    expect(summary.kinds.map((k) => k.kind)).toEqual(['pre-recorded']);
    expect(summary.not_started).toEqual(['live']);
    const file = await openReadOnly(db);
    try {
      const runs = await file.all<{ outcome: string }>('SELECT outcome FROM sync_runs');
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.every((run) => run.outcome === 'interrupted')).toBe(true);
    } finally {
      await file.close();
    }
  });

  it('a SIGTERM stops it the same way and exits 143', async () => {
    const { db, cli } = await slowSync();
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toContain('SIGTERM: committing what was fetched, then stopping');
    expect(shownLines(result.stderr).join('\n')).toMatch(/^pre-recorded: INTERRUPTED/m);
    const file = await openReadOnly(db);
    try {
      const runs = await file.all<{ outcome: string }>('SELECT outcome FROM sync_runs');
      expect(runs.map((run) => run.outcome)).toContain('interrupted');
    } finally {
      await file.close();
    }
  });

  it('a second SIGINT while it stops still exits 130, never killed by the signal', async () => {
    const { cli } = await slowSync();
    cli.child.kill('SIGINT');
    // Two signals sent back to back arrive as one; the second goes once the first is handled.
    await cli.output(/SIGINT: committing/);
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.signal, result.stderr).toBeNull();
    expect(result.code, result.stderr).toBe(130);
  });
});
