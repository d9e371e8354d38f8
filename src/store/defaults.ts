/** The store's defaults for what its callers leave out; the settings table (src/config) shows them. */

/** ms an open (src/store/open-file.ts) waits for a file another process holds (`--lock-wait`). */
export const DEFAULT_LOCK_WAIT_MS = 5_000;
