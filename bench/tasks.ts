/**
 * The measured tasks by name (a sync, the floors, the naive loader), loaded on demand so that a
 * child imports only its own task's code. Used by bench/child.ts and, with `--in-process`, by
 * bench/child-output.ts directly.
 */
import { readFileSync } from 'node:fs';

export type Task = (options: never) => Promise<object>;

export const TASKS: Readonly<Record<string, () => Promise<Task>>> = {
  sync: async () => (await import('./task-sync.js')).runSyncTask,
  'floor-a': async () => (await import('./task-floor-a.js')).runFloorA,
  'floor-a-bounded': async () => (await import('./task-floor-a.js')).runFloorABounded,
  'floor-b': async () => (await import('./task-floor-b.js')).runFloorB,
  naive: async () => (await import('./task-naive.js')).runNaive,
};

export async function loadTask(name: string | undefined): Promise<Task> {
  const load = name === undefined ? undefined : TASKS[name];
  if (!load) throw new Error(`unknown bench task "${name}"; one of ${Object.keys(TASKS).join(', ')}`);
  return load();
}

/** Bytes this process caused to be written to storage (Linux `/proc/self/io`); 0 where there is none. */
export function writeBytes(): number {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
