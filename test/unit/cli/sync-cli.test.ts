import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { runMain, shownLines } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const recent = () => ({ from: new Date(Date.now() - 3 * 86_400_000), to: new Date(Date.now() - 3_600_000) });

describe('transcript-sync sync', () => {
  it('stops after one request with a clear message when the key is refused, creating nothing', async () => {
    sim = await startSimulator({ preRecorded: 5, live: 5, ...recent() });
    const secret = 'wrong-key-4f9a1c';
    const home = tempDir();
    const result = await runMain(['sync', '--db', join(home, 'data', 'x.duckdb')], {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: secret,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refused/i);
    expect(result.stderr).toContain('TSYNC_API_KEY');
    expect(result.stderr + result.stdout).not.toContain(secret);
    expect(sim.log.filter((e) => e.path.startsWith('/v2/'))).toHaveLength(1);
    // Neither the database, nor its lock, nor the folder made for them.
    expect(readdirSync(home)).toEqual([]);
  });

  it('calls a base URL that answers 404 a setting to fix: exit 2, one line, nothing created', async () => {
    sim = await startSimulator({ preRecorded: 5, live: 5, ...recent() });
    const home = tempDir();
    const result = await runMain(['sync', '--db', join(home, 'x.duckdb')], {
      TSYNC_BASE_URL: `${sim.url}/api`,
      TSYNC_API_KEY: sim.apiKey,
    });
    expect(result.code, result.stderr).toBe(2);
    const lines = shownLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^transcript-sync: TSYNC_BASE_URL: GET \/api\/v2\/pre-recorded answered HTTP 404.*--base-url/,
    );
    expect(readdirSync(home)).toEqual([]);
  });

  it('prints one JSON summary with --json and exits 0; status reports the counts', async () => {
    sim = await startSimulator({ preRecorded: 12, live: 8, ...recent() });
    const db = join(tempDir(), 'json.duckdb');
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    const result = await runMain(['sync', '--db', db, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      outcome: string;
      run_id: string;
      kinds: { kind: string; inserted: number; jobs_fetched: number; started_at: string }[];
    };
    expect(summary.outcome).toBe('ok');
    // snake_case like SQL and status --json: no camelCase key anywhere.
    expect(result.stdout).not.toMatch(/"[a-z]+[A-Z]\w*":/);
    expect(summary.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(summary.kinds[0]?.jobs_fetched).toBeGreaterThan(0);
    expect(Object.fromEntries(summary.kinds.map((k) => [k.kind, k.inserted]))).toEqual({
      'pre-recorded': 12,
      live: 8,
    });
    const status = await runMain(['status', '--db', db, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const rows = JSON.parse(status.stdout) as {
      kind: string;
      jobs: number;
      last_outcome: string;
      watermark: string | null;
    }[];
    expect(rows.map((r) => [r.kind, r.jobs, r.last_outcome])).toEqual([
      ['pre-recorded', 12, 'ok'],
      ['live', 8, 'ok'],
    ]);
    expect(rows.every((r) => r.watermark !== null)).toBe(true);
  });
});
