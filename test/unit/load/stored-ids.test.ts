import { afterEach, describe, expect, it } from 'vitest';
import { StoredIds } from '../../../src/load/stored-ids.js';
import type { Database } from '../../../src/store/database.js';
import { openWriter } from '../../../src/store/open-file.js';
import { allFixtures } from '../../fixtures/fixtures.js';
import { loadRecords } from '../../helpers/load.js';
import { migratedDb } from '../../helpers/migrated-db.js';

let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

describe('the stored ids', () => {
  it('may hold every id of jobs, every staged id and every id added; it seldom claims another', async () => {
    db = await openWriter(await migratedDb('ids.duckdb'));
    await loadRecords(db, allFixtures());
    const stored = allFixtures().map((record) => String((record as { id: unknown }).id));
    const ids = await StoredIds.read(db, ['staged-1', 'staged-2']);
    for (const id of [...stored, 'staged-1', 'staged-2']) expect(ids.mayHold(id), id).toBe(true);
    // Past the ids it was sized for it says so, and still never forgets one.
    const added: string[] = [];
    for (let i = 0; !ids.full; i++) {
      const id = `job-${i.toString(36)}-${(i * 2_654_435_761) >>> 0}`;
      ids.add(id);
      added.push(id);
    }
    expect(added.length).toBeGreaterThan(65_000);
    for (const id of added) if (!ids.mayHold(id)) expect.fail(`${id} was added and is not held`);
    let claimed = 0;
    for (let i = 0; i < 100_000; i++) if (ids.mayHold(`other-${i}`)) claimed += 1;
    // Sized for its ids, about 1 in 2,000 others is claimed; full, a few times that.
    expect(claimed).toBeLessThan(1_000);
  });
});
