/**
 * `demo` off a terminal logs its progress as `sync` does: JSON lines on stderr, one `progress` line
 * per kind as its walk starts and then every few seconds, at the default log level.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

/** The JSON log lines of `stderr` whose message is `msg`. */
function logged(stderr: string, msg: string): Record<string, unknown>[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry['msg'] === msg);
}

describe('demo off a terminal', () => {
  it('logs progress lines like sync, at the default level', async () => {
    const db = join(tempDir(), 'demo.duckdb');
    const demo = await runMain(['demo', '--jobs', '20', '--db', db], { TSYNC_LOG_LEVEL: 'info' });
    expect(demo.code, demo.stderr).toBe(0);
    const progress = logged(demo.stderr, 'progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ kind: expect.any(String), jobs: expect.any(Number) });
    // Nothing but log lines on stderr, as sync's.
    expect(
      demo.stderr
        .trim()
        .split('\n')
        .every((line) => line.startsWith('{')),
    ).toBe(true);
  });
});
