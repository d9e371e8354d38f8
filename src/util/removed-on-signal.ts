/**
 * Work files of a command that must not outlive it (an export's staging folder, a compact's copy, a
 * writer's lock): while they exist, a SIGINT or SIGTERM that nothing else in the process handles
 * removes them, then ends the process by the same signal. A command that handles the signal itself
 * removes its own.
 */
import { rmdirSync, rmSync } from 'node:fs';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** How a path goes: whole, or only while it is an empty folder (one holding anything stays). */
export type Removal = 'whole' | 'if-empty';

/** What a signal undoes, in the order given: it runs the last given first. */
const cleanups = new Set<() => void>();

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  for (const cleanup of [...cleanups].reverse()) {
    try {
      cleanup();
    } catch {}
  }
  cleanups.clear();
  for (const name of SIGNALS) process.off(name, onSignal);
  process.kill(process.pid, signal);
}

/**
 * Runs `cleanup` (synchronous) should a signal end the process before the returned function is
 * called; that function forgets it, and is idempotent.
 */
export function cleanedOnSignal(cleanup: () => void): () => void {
  const entry = () => cleanup();
  if (cleanups.size === 0) for (const name of SIGNALS) process.on(name, onSignal);
  cleanups.add(entry);
  return () => {
    if (!cleanups.delete(entry)) return;
    if (cleanups.size === 0) for (const name of SIGNALS) process.off(name, onSignal);
  };
}

/** Runs `fn` with `path` removed should a signal end the process meanwhile, after paths given in `fn`. */
export async function removedOnSignal<T>(
  path: string,
  fn: () => Promise<T>,
  removal: Removal = 'whole',
): Promise<T> {
  const forget = cleanedOnSignal(() => {
    if (removal === 'whole') rmSync(path, { recursive: true, force: true });
    else rmdirSync(path);
  });
  try {
    return await fn();
  } finally {
    forget();
  }
}
