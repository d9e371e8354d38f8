/**
 * A redis-server of the test's own, on a free port, that the test can stop and start again (an
 * outage, a restart that comes back empty) or freeze for a while (an outage that keeps the data).
 * Stopped after the test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './net.js';
import { waitForPing } from './redis-ping.js';
import { tempDir } from './tmp.js';
import { onCleanup } from './worker.js';

export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGKILL: nothing saved, like a crash); resolves once it exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes the server for `ms` (SIGSTOP, then SIGCONT): keys whose time ran out are gone after. */
  freeze(ms: number): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = tempDir('tsync-own-redis-');
  let child: ChildProcess | undefined;
  const start = async () => {
    const spawned = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    child = spawned;
    await waitForPing(port, spawned);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  const freeze = async (ms: number) => {
    child?.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, ms));
    child?.kill('SIGCONT');
  };
  await start();
  onCleanup(stop);
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, freeze };
}
