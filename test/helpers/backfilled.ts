/**
 * The file a first sync of an account leaves, for the tests of a file that each begin with that
 * sync: it runs once, when the first of them asks, and each test gets a copy of the file beside a
 * simulator of its own (over HTTP, or in-process: anything with the simulator's `data`), checked to
 * serve the very records the sync stored. A copy costs a millisecond; a first sync of a few dozen
 * jobs about 0.1 CPU-s.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Simulator, SimulatorData } from '../../src/simulator/index.js';
import type { SyncSummary } from '../../src/sync/types.js';
import { copyMigrated } from './migrated-db.js';
import { SCRATCH, tempDir } from './tmp.js';

export interface Backfilled<S = Simulator> {
  readonly simulator: S;
  /** A copy of the back-filled file, in the test's temporary folder. */
  readonly db: string;
}

/**
 * Copies of the file `sync` leaves in a migrated, empty file, with a simulator from `start` (a
 * simulator of the account, closed after the current test; its records must not depend on when it
 * starts). The copy is named `name`.
 */
export function backfilledCopies<S extends { readonly data: SimulatorData } = Simulator>(
  start: () => Promise<S>,
  sync: (simulator: S, db: string) => Promise<SyncSummary>,
): (name: string) => Promise<Backfilled<S>> {
  // The records as JSON text: two texts compare far faster than hundreds of records as objects,
  // and equal texts are equal records (the generator writes keys in one order).
  let made: Promise<{ db: string; records: string }> | undefined;
  const backfill = async () => {
    const simulator = await start();
    // In the run's scratch folder, removed with it.
    const db = join(mkdtempSync(join(SCRATCH, 'tsync-backfilled-')), 'backfilled.duckdb');
    await copyMigrated(db);
    expect((await sync(simulator, db)).outcome).toBe('ok');
    return { db, records: JSON.stringify(simulator.data.all()) };
  };
  return async (name) => {
    made ??= backfill();
    const template = await made;
    const db = join(tempDir(), name);
    copyFileSync(template.db, db);
    const simulator = await start();
    expect(JSON.stringify(simulator.data.all())).toBe(template.records);
    return { simulator, db };
  };
}
