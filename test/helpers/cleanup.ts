/**
 * What the current test leaves to be undone (workers, Redis clients), run newest first after it by
 * test/helpers/after-each-test.ts. The list lives here and the hook in a setup file, not in a
 * helper's top level: each tier shares one module cache across its files (isolate: false), so a
 * hook registered when a helper is first imported would serve only the first file that imports it.
 */
const cleanups: (() => Promise<void>)[] = [];

/** Runs `cleanup` after the current test, newest first. */
export function onCleanup(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}
