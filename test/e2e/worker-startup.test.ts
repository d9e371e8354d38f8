/**
 * What the worker process tells while it runs: a refused key makes /healthz fail with the reason.
 * Its checks before it starts (a busy metrics port, an unwritable report directory, no Redis) are
 * test/unit/worker/worker-startup.test.ts, in-process.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { tempDir } from '../helpers/tmp.js';
import { NO_REPORT, onCleanup, spawnCli, workerEnv } from '../helpers/worker.js';

describe('worker health', () => {
  it('/healthz is 503 naming the error when the last run failed with a refused key', async () => {
    const sim = await startSimulator({ preRecorded: 3, live: 3 });
    onCleanup(() => sim.close());
    const db = join(tempDir(), 'transcripts.duckdb');
    const worker = spawnCli(
      ['worker', '--metrics-port', '0', '--every', '1h', '--kind', 'live', ...NO_REPORT],
      workerEnv(db, { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: 'wrong-key' }),
    );
    const serving = await worker.waitForLog((l) => l['msg'] === 'serving /metrics and /healthz');
    await worker.waitForLog((l) => l['msg'] === 'job failed for good');
    const response = await fetch(`${String(serving['url'])}/healthz`);
    expect(response.status).toBe(503);
    const report = (await response.json()) as Record<string, unknown>;
    expect(report['redis']).toBe('ok');
    expect(report['reasons']).toEqual([
      expect.stringMatching(
        /^the last live sync failed with an error no retry can fix \(AUTH\): the service refused the API key/,
      ),
    ]);
    expect(report['kinds']).toMatchObject({ live: { last_outcome: 'failed', last_error_retryable: false } });
    expect(JSON.stringify(report)).not.toContain('wrong-key');
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
