/**
 * Ctrl-C during `erase` (the real process, bin over dist/): whenever the signal lands, each job
 * keeps all of its content or none of it, and running `erase` again finishes the erasure, bytes
 * included.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { openReadOnly } from '../../src/store/open-file.js';
import { runMain, startCli } from '../helpers/cli.js';
import { searchDatabase } from '../helpers/secret-search.js';
import { syncOnce } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';

const PHRASE = 'okapi-saffron-PHRASE-90417';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Per erased-or-not state of the selected jobs: how many, and how many hold content rows. */
async function states(db: string, ids: readonly string[]): Promise<{ erased: boolean; whole: boolean }[]> {
  const file = await openReadOnly(db);
  try {
    return await file.all<{ erased: boolean; whole: boolean }>(
      `SELECT j.erased_at IS NOT NULL AS erased,
              (SELECT count(*) FROM job_records r WHERE r.job_id = j.id) = 1
              AND (SELECT count(*) FROM utterances u WHERE u.job_id = j.id) > 0
              AND j.full_transcript IS NOT NULL AS whole
       FROM jobs j WHERE list_contains($ids, j.id)`,
      { ids: [...ids] },
    );
  } finally {
    await file.close();
  }
}

describe('erase and Ctrl-C', () => {
  it('a SIGINT leaves each job whole or erased, never half; erase again finishes, bytes included', async () => {
    sim = await startSimulator({ preRecorded: 40, live: 0, seed: 5 });
    const ids = sim.data
      .all()
      .filter((r) => r['status'] === 'done')
      .slice(0, 6)
      .map((r) => String(r['id']));
    for (const id of ids) {
      sim.data.edit(id, (r) => {
        const transcription = (r['result'] as { transcription: { full_transcript: string } }).transcription;
        transcription.full_transcript = `${PHRASE}-${ids.indexOf(id) < 3 ? 'early' : 'late'} ${id}`;
      });
    }
    const db = join(tempDir(), 'erase.duckdb');
    await syncOnce(sim, db);
    // Both halves are in the file's bytes to begin with.
    for (const half of ['early', 'late']) {
      expect((await searchDatabase(db, `${PHRASE}-${half}`)).hits).toContain(`bytes of ${db}`);
    }
    const args = (some: readonly string[]) => [
      'erase',
      '--db',
      db,
      ...some.flatMap((id) => ['--job', id]),
      '--yes',
    ];
    // Half the jobs signalled early (starting, or erasing), the other half as the rewrite starts
    // (the erasure committed).
    for (const [some, signalled] of [
      [ids.slice(0, 3), () => new Promise((resolve) => setTimeout(resolve, 600))],
      [ids.slice(3), (cli: ReturnType<typeof startCli>) => cli.output(/rewriting/)],
    ] as const) {
      const cli = startCli(args(some), { TSYNC_LOG_LEVEL: 'info' });
      await signalled(cli);
      cli.child.kill('SIGINT');
      await cli.done;
      for (const state of await states(db, ids)) expect(state.erased).toBe(!state.whole);
    }
    // The runs after the signals need no signal of their own: the same main(), in this process.
    // The late half, erased already: this run finds nothing to erase and still rewrites the file.
    const late = await runMain(args(ids.slice(3)));
    expect(late.code, late.stderr).toBe(0);
    expect((await searchDatabase(db, `${PHRASE}-late`)).hits).toEqual([]);
    const file = await openReadOnly(db);
    try {
      const [owed] = await file.all<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM erasures WHERE rewritten_at IS NULL',
      );
      expect(owed?.n).toBe(0);
    } finally {
      await file.close();
    }
    const again = await runMain(args(ids));
    expect(again.code, again.stderr).toBe(0);
    expect((await states(db, ids)).every((s) => s.erased && !s.whole)).toBe(true);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
  });
});
