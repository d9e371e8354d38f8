/**
 * A key the service refuses stops `sync` at the kind it was syncing; it still ends with a summary
 * line per kind asked for, on a terminal as off one: that kind FAILED with the reason, the kinds it
 * never reached `not started`, then the one error line (exit 2).
 */
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/program.js';
import { type Simulator, startSimulator } from '../../../src/simulator/index.js';
import { runMain, shownLines } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

/** A stream that keeps what is written to it, as a terminal (isTTY) or a pipe. */
class Sink extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ preRecorded: 3, live: 3, seed: 5, utterancesPerJob: 1, wordsPerUtterance: 2 });
});
afterAll(async () => {
  await sim.close();
});

/** A file synced once with the right key: a refused key then meets the walk, not the first check. */
async function syncedFile(): Promise<string> {
  const db = join(tempDir(), 'refused.duckdb');
  const first = await runMain(['sync', '--db', db], { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey });
  expect(first.code, first.stderr).toBe(0);
  return db;
}

const WRONG = { TSYNC_LOG_LEVEL: 'warn', TSYNC_API_KEY: 'a-wrong-key' };

describe('sync with a refused key', () => {
  it('on a terminal: each kind asked for, then the error', async () => {
    const db = await syncedFile();
    const stdout = new Sink(false);
    const stderr = new Sink(true);
    const env = { ...WRONG, TSYNC_BASE_URL: sim.url };
    const code = await main(['sync', '--db', db], { stdout, stderr, env, stdin: Readable.from(['']) });
    expect(code, stderr.text).toBe(2);
    const lines = stderr.text.split('\n').filter((line) => line !== '' && !line.startsWith('\x1b'));
    expect(lines).toEqual([
      expect.stringMatching(/^pre-recorded: FAILED \(the service refused the API key \(HTTP 401\)/),
      'live: not started (the run stopped before it)',
      expect.stringMatching(
        /^transcript-sync: the service refused the API key \(HTTP 401\); check TSYNC_API_KEY/,
      ),
    ]);
  });

  it('off a terminal: the same lines, as log lines', async () => {
    const db = await syncedFile();
    const result = await runMain(['sync', '--db', db], { ...WRONG, TSYNC_BASE_URL: sim.url });
    expect(result.code, result.stderr).toBe(2);
    expect(shownLines(result.stderr)).toEqual([
      expect.stringMatching(/^pre-recorded: FAILED \(the service refused the API key/),
      'live: not started (the run stopped before it)',
      expect.stringMatching(/^transcript-sync: the service refused the API key/),
    ]);
  });
});
