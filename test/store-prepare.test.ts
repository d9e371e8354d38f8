import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateDataset } from '../src/simulator/generate.js';
import { Database } from '../src/store/database.js';
import { JobLoader } from '../src/store/loader.js';
import { mergePrepared, prepareBatch } from '../src/store/prepare.js';
import { tempDir } from './helpers/tmp.js';

const open: Database[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function freshDb(name: string): Promise<Database> {
  const db = await Database.open(join(tempDir(), `${name}.duckdb`));
  open.push(db);
  return db;
}

/** Every word of the file as text, in key order, so two files can be compared whole. */
async function wordsOf(db: Database): Promise<string[]> {
  const rows = await db.all<{ w: string }>(
    `SELECT concat_ws('|', job_id, source, utterance_idx, word_idx, coalesce(word, '<null>'), start, "end", confidence) AS w
     FROM words ORDER BY job_id, source, utterance_idx, word_idx`,
  );
  return rows.map((row) => row.w);
}

const syncedAt = new Date('2025-04-01T00:00:00.000Z');

describe('records prepared ahead of their load', () => {
  const records = generateDataset({
    seed: 5,
    preRecorded: 12,
    live: 12,
    utterancesPerJob: 4,
    wordsPerUtterance: 6,
  });
  // A word without text must survive the dictionary as NULL.
  const first = records.find((r) => r['status'] === 'done') as {
    result: { transcription: { utterances: { words: { word?: string | null }[] }[] } };
  };
  const firstWord = first.result.transcription.utterances[0]?.words[0];
  if (firstWord) firstWord.word = null;

  it('write the same words as a plain load, pages merged or not', async () => {
    const plain = await freshDb('plain');
    await new JobLoader(plain).load(records, { syncedAt });

    const halves = [records.slice(0, 10), records.slice(10)];
    const merged = mergePrepared(halves.map((half) => prepareBatch(half)));
    expect(merged).toBeDefined();
    const ahead = await freshDb('ahead');
    const result = await new JobLoader(ahead).load(records, { syncedAt, prepared: merged });

    expect(result.inserted).toBe(records.length);
    expect(await wordsOf(ahead)).toEqual(await wordsOf(plain));
    expect(await wordsOf(ahead)).toContainEqual(expect.stringContaining('|<null>|'));
    const stamped = await ahead.all<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM jobs WHERE synced_at IS NULL',
    );
    expect(stamped[0]?.n).toBe(0);
  });

  it('are not merged when a job appears in two pages', () => {
    const overlapping = [records.slice(0, 10), records.slice(9, 14)].map((page) => prepareBatch(page));
    expect(mergePrepared(overlapping)).toBeUndefined();
  });
});
