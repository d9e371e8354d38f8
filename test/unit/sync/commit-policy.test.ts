/**
 * How a writer's transaction commits, seen in the file: through the WAL (the `.wal` file holds the
 * changes until a later checkpoint) or straight into the file (the WAL stays empty).
 */
import { existsSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { planMemory } from '../../../src/memory/budget.js';
import type { Database } from '../../../src/store/database.js';
import { openWriter } from '../../../src/store/open-file.js';
import { TransactionSize } from '../../../src/sync/writer/writer.js';
import { migratedDb } from '../../helpers/migrated-db.js';

const memory = planMemory(512e6, 2);
const opened: Database[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

/** Bytes in the file's WAL after one transaction that adds 1,000 ids and counts as `load` says. */
async function walBytesAfter(load: { rows: number; bytes: number; storedBytes: number }): Promise<number> {
  const path = await migratedDb('commit.duckdb');
  const db = await openWriter(path);
  opened.push(db);
  await db.run('CREATE TABLE ids (id VARCHAR)');
  const size = new TransactionSize(memory);
  await db.transaction(async () => {
    await db.run("INSERT INTO ids SELECT 'job-' || range FROM range(1000)");
    size.add({ utterances: 0, words: load.rows, storedBytes: load.storedBytes }, load.bytes);
    size.beforeCommit(db);
  });
  const [row] = await db.all<{ n: bigint }>('SELECT count(*) AS n FROM ids');
  expect(Number(row?.n)).toBe(1000);
  return existsSync(`${path}.wal`) ? statSync(`${path}.wal`).size : 0;
}

describe("a writer's commit", () => {
  it('goes through the WAL when the transaction read a batch of JSON but stored none of it', async () => {
    // An idle or --full run over unchanged jobs: pages read, nothing but ids written.
    const wal = await walBytesAfter({ rows: 0, bytes: 2 * memory.batchBytes, storedBytes: 0 });
    expect(wal).toBeGreaterThan(0);
  });

  it('goes straight into the file when the transaction stored a batch of JSON', async () => {
    const wal = await walBytesAfter({
      rows: 50_000,
      bytes: memory.batchBytes,
      storedBytes: memory.batchBytes,
    });
    expect(wal).toBe(0);
  });
});
