/**
 * Pages normalized ahead of their load and merged by the writer: the merged batch writes what one
 * load of the same records writes, and a job repeated across pages is written once, as the later
 * page has it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeRecords } from '../src/normalize/normalize.js';
import { mergeRowBatches } from '../src/normalize/row-batch.js';
import { generateDataset } from '../src/simulator/generate.js';
import { Database } from '../src/store/database.js';
import { JobLoader } from '../src/store/loader.js';
import { migratedDb } from './helpers/migrated-db.js';

const open: Database[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function freshDb(name: string): Promise<Database> {
  const db = await Database.open(await migratedDb(`${name}.duckdb`));
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

/** The jobs of the file, raw included, in id order. */
async function jobsOf(db: Database): Promise<string[]> {
  const rows = await db.all<{ j: string }>(
    `SELECT concat_ws('|', id, status, content_hash, raw) AS j FROM jobs ORDER BY id`,
  );
  return rows.map((row) => row.j);
}

const syncedAt = new Date('2025-04-01T00:00:00.000Z');

describe('pages normalized ahead of their load', () => {
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
    await new JobLoader(plain).load(normalizeRecords(records), { syncedAt });

    const halves = [records.slice(0, 10), records.slice(10)];
    const merged = mergeRowBatches(halves.map((half) => normalizeRecords(half)));
    const ahead = await freshDb('ahead');
    const result = await new JobLoader(ahead).load(merged, { syncedAt });

    expect(result.inserted).toBe(records.length);
    expect(await wordsOf(ahead)).toEqual(await wordsOf(plain));
    expect(await wordsOf(ahead)).toContainEqual(expect.stringContaining('|<null>|'));
    const stamped = await ahead.all<{ n: number }>(
      'SELECT count(*)::INTEGER AS n FROM jobs WHERE synced_at IS NULL',
    );
    expect(stamped[0]?.n).toBe(0);
  });

  it("keep one copy of a job repeated across pages, the later page's", async () => {
    // Record 9 is served by both pages (a walk's anchor); the service changed it in between.
    const done = records.findIndex((r, i) => i >= 9 && r['status'] === 'done');
    const repeated = structuredClone(records[done] as Record<string, unknown>);
    repeated['custom_metadata'] = { edited: true };
    const utterances = (
      repeated['result'] as { transcription: { utterances: { words: { word: string }[] }[] } }
    ).transcription.utterances;
    if (utterances[0]?.words[0]) utterances[0].words[0].word = 'Later';
    const pages = [records.slice(0, done + 1), [repeated, ...records.slice(done + 1, done + 4)]];
    const merged = mergeRowBatches(pages.map((page) => normalizeRecords(page)));

    const distinct = [...records.slice(0, done), repeated, ...records.slice(done + 1, done + 4)];
    expect(merged.jobs.size).toBe(distinct.length);
    expect(merged.rows.jobs.rowCount).toBe(distinct.length);
    expect(merged.records).toBe(distinct.length + 1);
    expect(merged.listedIds).toHaveLength(distinct.length + 1);

    const once = await freshDb('once');
    await new JobLoader(once).load(normalizeRecords(distinct), { syncedAt });
    const twice = await freshDb('merged');
    const result = await new JobLoader(twice).load(merged, { syncedAt });
    expect(result.inserted).toBe(distinct.length);
    expect(await jobsOf(twice)).toEqual(await jobsOf(once));
    expect(await wordsOf(twice)).toEqual(await wordsOf(once));
    expect(await wordsOf(twice)).toContainEqual(expect.stringContaining('|Later|'));
  });
});
