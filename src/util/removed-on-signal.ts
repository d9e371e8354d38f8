/**
 * Work files of a command that must not outlive it (an export's staging folder, a compact's copy):
 * while `fn` runs, a SIGINT or SIGTERM that nothing else in the process handles removes them, then
 * ends the process by the same signal. A command that handles the signal itself removes its own.
 */
import { rmdirSync, rmSync } from 'node:fs';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** How a path goes: whole, or only while it is an empty folder (one holding anything stays). */
export type Removal = 'whole' | 'if-empty';

/** The paths to remove, in the order given: a signal removes the last given first. */
const paths = new Map<string, Removal>();

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  for (const [path, removal] of [...paths].reverse()) {
    try {
      if (removal === 'whole') rmSync(path, { recursive: true, force: true });
      else rmdirSync(path);
    } catch {}
  }
  paths.clear();
  for (const name of SIGNALS) process.off(name, onSignal);
  process.kill(process.pid, signal);
}

/** Runs `fn` with `path` removed should a signal end the process meanwhile, after paths given in `fn`. */
export async function removedOnSignal<T>(
  path: string,
  fn: () => Promise<T>,
  removal: Removal = 'whole',
): Promise<T> {
  if (paths.size === 0) for (const name of SIGNALS) process.on(name, onSignal);
  paths.set(path, removal);
  try {
    return await fn();
  } finally {
    paths.delete(path);
    if (paths.size === 0) for (const name of SIGNALS) process.off(name, onSignal);
  }
}
