/**
 * Ctrl-C during `erase` (the real process, bin over dist/): whenever the signal lands, each job
 * keeps all of its content or none of it, and running `erase` again finishes the erasure, bytes
 * included.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openReadOnly } from '../../src/load/open-file.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { runCli, startCli } from '../helpers/cli.js';
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
        transcription.full_transcript = `${PHRASE} ${id}`;
      });
    }
    const db = join(tempDir(), 'erase.duckdb');
    await syncOnce(sim, db);
    const args = ['erase', '--db', db, ...ids.flatMap((id) => ['--job', id]), '--yes'];
    // Once early (starting, or erasing), once as the rewrite starts (the erasure committed).
    for (const signalled of [
      () => new Promise((resolve) => setTimeout(resolve, 600)),
      (cli: ReturnType<typeof startCli>) => cli.output(/rewriting/),
    ]) {
      const cli = startCli(args, { TSYNC_LOG_LEVEL: 'info' });
      await signalled(cli);
      cli.child.kill('SIGINT');
      await cli.done;
      for (const state of await states(db, ids)) expect(state.erased).toBe(!state.whole);
    }
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect((await states(db, ids)).every((s) => s.erased && !s.whole)).toBe(true);
    expect((await searchDatabase(db, PHRASE)).hits).toEqual([]);
  });
});
