/**
 * Runs a writer never closed (killed with SIGKILL, or it failed writing the file) are closed as
 * `abandoned` by the next run, which takes over the dead writer's lock; `runs` and `status` show it.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../src/simulator/index.js';
import { writerLockPath } from '../../../src/store/file/writer-lock.js';
import { openWriter } from '../../../src/store/open-file.js';
import { insertRun } from '../../../src/store/statements/runs.js';
import { ABANDONED_ERROR } from '../../../src/sync/kind-run.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { runMain } from '../../helpers/cli.js';
import { copyMigrated } from '../../helpers/migrated-db.js';
import { tempDir } from '../../helpers/tmp.js';

interface RunJson {
  readonly run_id: string;
  readonly kind: string;
  readonly outcome: string;
  readonly finished_at: string | null;
  readonly error: string | null;
}

/** The file as a writer killed mid-run leaves it: its rows 'running', its lock naming a dead pid. */
async function killedWriter(db: string, runId: string): Promise<void> {
  const file = await openWriter(db);
  try {
    for (const kind of ['pre-recorded', 'live'] as const) {
      await insertRun(file, {
        run_id: runId,
        kind,
        mode: 'incremental',
        window_after: null,
        window_before: '2026-01-01T00:00:00.000Z',
        started_at: '2026-01-01T00:00:00.000Z',
      });
    }
  } finally {
    await file.close();
  }
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const holder = {
    token: 'dead',
    pid: dead,
    host: hostname(),
    command: 'sync',
    since: '2026-01-01T00:00:00.000Z',
  };
  writeFileSync(writerLockPath(db), JSON.stringify({ ...holder, start_ticks: null }));
}

describe('runs of a writer that is gone', () => {
  it('the run that takes over its lock closes them as abandoned, with an end time; runs and status say so', async () => {
    const sim = await startSimulator({ preRecorded: 3, live: 2 });
    onCleanup(() => sim.close());
    const db = join(tempDir(), 'transcripts.duckdb');
    await copyMigrated(db);
    await killedWriter(db, 'killed-run');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey, TSYNC_DB: db };

    const before = await runMain(['runs', '--json'], env);
    expect(before.code, before.stderr).toBe(0);
    expect((JSON.parse(before.stdout) as RunJson[]).map((r) => r.outcome)).toEqual(['running', 'running']);

    // Only one kind runs: the other kind's newest run stays the abandoned one.
    const sync = await runMain(['sync', '--kind', 'live', '--lock-wait', '0s'], env);
    expect(sync.code, sync.stderr).toBe(0);

    const runs = JSON.parse((await runMain(['runs', '--json'], env)).stdout) as RunJson[];
    const killed = runs.filter((r) => r.run_id === 'killed-run');
    expect(killed.map((r) => [r.kind, r.outcome, r.error])).toEqual([
      ['live', 'abandoned', ABANDONED_ERROR],
      ['pre-recorded', 'abandoned', ABANDONED_ERROR],
    ]);
    for (const r of killed) expect(Date.parse(r.finished_at ?? '')).toBeGreaterThan(Date.parse('2026-01-01'));
    expect(runs.filter((r) => r.run_id !== 'killed-run').map((r) => [r.kind, r.outcome])).toEqual([
      ['live', 'ok'],
    ]);

    const status = await runMain(['status', '--json'], env);
    const kinds = JSON.parse(status.stdout) as { kind: string; last_outcome: string }[];
    expect(kinds.map((k) => [k.kind, k.last_outcome])).toEqual([
      ['pre-recorded', 'abandoned'],
      ['live', 'ok'],
    ]);
    expect((await runMain(['status'], env)).stdout).toContain('abandoned');
  });
});
