/**
 * The simulator's defaults, for what its options leave out; `transcript-sync simulate` shows and
 * uses the same (src/config's table reads them here, a module that imports nothing).
 */

/** The generated account: seed, jobs of each kind, their size, and the dates they span. */
export const GENERATE_DEFAULTS = {
  seed: 7,
  preRecorded: 100,
  live: 100,
  utterancesPerJob: 12,
  wordsPerUtterance: 8,
  to: new Date('2026-11-01T00:00:00.000Z'),
  days: 90,
} as const;

/** The server: where it listens, the key it takes, its page cap and added latency (ms). */
export const SERVER_DEFAULTS = {
  host: '127.0.0.1',
  apiKey: 'sim-key',
  limitCap: 100,
  latencyMs: 0,
} as const;

/** A growing account: the share of arrivals that delete an older job, and ms until a job settles. */
export const GROW_DEFAULTS = { deleteShare: 0.02, settleMs: 300_000 } as const;
