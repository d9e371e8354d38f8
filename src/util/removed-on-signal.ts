/**
 * Work files of a command that must not outlive it (an export's staging folder, a compact's copy):
 * while `fn` runs, a SIGINT or SIGTERM that nothing else in the process handles removes them, then
 * ends the process by the same signal, as it would have ended without them (a shell reports 128
 * plus the signal's number). Where a command handles the signal itself (a sync stops cleanly), it is
 * left to that command: the work goes on to its own end, which removes its files.
 */
import { rmSync } from 'node:fs';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

const paths = new Set<string>();

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  for (const path of paths) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {}
  }
  paths.clear();
  for (const name of SIGNALS) process.off(name, onSignal);
  process.kill(process.pid, signal);
}

/** Runs `fn` with `path` (a file or folder) removed should a signal end the process meanwhile. */
export async function removedOnSignal<T>(path: string, fn: () => Promise<T>): Promise<T> {
  if (paths.size === 0) for (const name of SIGNALS) process.on(name, onSignal);
  paths.add(path);
  try {
    return await fn();
  } finally {
    paths.delete(path);
    if (paths.size === 0) for (const name of SIGNALS) process.off(name, onSignal);
  }
}
