/**
 * The checks of `verify` over words and utterances group compact keys, never one row per word: the
 * words by the hash of their utterance's key (then the suspect utterances again by the natural
 * key), words and utterances by a list of up to 64 utterances with a bit mask of their indexes.
 * Each must name exactly the jobs the plain grouping or join of the natural keys names, whichever
 * key a job hashes to, with indexes of any sign and size, and each job once.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset } from '../../../src/simulator/index.js';
import type { Database } from '../../../src/store/database.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import {
  duplicateUtteranceJobs,
  duplicateWordJobs,
  orphanWordJobs,
} from '../../../src/store/statements/verify.js';
import { loadRecords } from '../../helpers/analytics-data.js';
import { fileTempDir, tempDir } from '../../helpers/tmp.js';

/** The natural-key statements the compact ones must agree with. */
const PLAIN = {
  duplicateWords:
    'SELECT DISTINCT job_id AS id FROM words GROUP BY job_id, source, utterance_idx, word_idx HAVING count(*) > 1',
  duplicateUtterances:
    'SELECT DISTINCT job_id AS id FROM utterances GROUP BY job_id, source, utterance_idx HAVING count(*) > 1',
  orphanWords: `SELECT DISTINCT w.job_id AS id FROM words w ANTI JOIN utterances u
    ON u.job_id = w.job_id AND u.source = w.source AND u.utterance_idx = w.utterance_idx`,
};

/** Shifts of the utterance hash: the whole hash, 16 keys, 2 keys (every utterance collides). */
const SHIFTS = [0, 60, 63];

const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id).sort();

async function plain(db: Database, sql: string): Promise<string[]> {
  return ids(await db.all<{ id: string }>(sql));
}

async function withFile(path: string, fn: (db: Database) => Promise<void>): Promise<void> {
  const db = await openReadOnly(path);
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

/** A sound file of 12 jobs (3 utterances of 4 words each, per list), loaded once for the file. */
const template = fileTempDir('tsync-verify-groups-');
const sound = join(template.dir, 'sound.duckdb');
beforeAll(() =>
  loadRecords(
    sound,
    generateDataset({ seed: 41, preRecorded: 6, live: 6, utterancesPerJob: 3, wordsPerUtterance: 4 }),
  ),
);
afterAll(() => template.remove());

/** A copy of the sound file for one test; returns its path. */
function soundFile(name: string): string {
  const path = join(tempDir(), `${name}.duckdb`);
  copyFileSync(sound, path);
  return path;
}

/** Runs the statements on `path` in order, in one writable open. */
async function writeSql(
  path: string,
  steps: readonly (readonly [sql: string, params: { n: number }])[],
): Promise<void> {
  const db = await openWriter(path);
  try {
    for (const [sql, params] of steps) await db.run(sql, params);
  } finally {
    await db.close();
  }
}

/** The n-th job with words, in id order (jobs still queued or failed have none). */
const NTH_JOB = '(SELECT DISTINCT job_id FROM words ORDER BY job_id LIMIT 1 OFFSET $n)';

describe('verify groups compact keys', () => {
  it('names no job on a sound file, even when every utterance key collides', async () => {
    await withFile(sound, async (db) => {
      for (const shift of SHIFTS) expect(await duplicateWordJobs(db, shift)).toEqual([]);
      expect(await duplicateUtteranceJobs(db)).toEqual([]);
      expect(await orphanWordJobs(db)).toEqual([]);
    });
  });

  it('finds a word stored twice whichever key its utterance hashes to, and names the job once', async () => {
    const path = soundFile('twice');
    // Three jobs with their first word stored again; the first also has its first utterance's
    // words stored again, so that its first word is there three times.
    const firstWord = `INSERT INTO words SELECT * FROM words WHERE job_id = ${NTH_JOB} AND utterance_idx = 0 AND word_idx = 0`;
    await writeSql(path, [
      ...[0, 3, 5].map((n) => [firstWord, { n }] as const),
      [`INSERT INTO words SELECT * FROM words WHERE job_id = ${NTH_JOB} AND utterance_idx = 0`, { n: 0 }],
    ]);
    await withFile(path, async (db) => {
      const expected = await plain(db, PLAIN.duplicateWords);
      expect(expected).toHaveLength(3);
      for (const shift of SHIFTS) expect(ids(await duplicateWordJobs(db, shift))).toEqual(expected);
    });
  });

  it('tells indexes apart beyond 63 and below 0, where the masks reuse their bits', async () => {
    const path = soundFile('far');
    await writeSql(path, [
      // Job 1: words 64, -1 and -64 beside 0..3 (bits 0, 63, 0 again): no word repeats.
      [
        `INSERT INTO words SELECT job_id, source, utterance_idx, w.idx, word, start, "end", confidence, job_created_at
         FROM words, (VALUES (64), (-1), (-64)) w(idx)
         WHERE job_id = ${NTH_JOB} AND utterance_idx = 0 AND word_idx = 0`,
        { n: 1 },
      ],
      // Job 2: word 64 stored twice.
      [
        `INSERT INTO words SELECT job_id, source, utterance_idx, 64, word, start, "end", confidence, job_created_at
         FROM words, range(2) WHERE job_id = ${NTH_JOB} AND utterance_idx = 0 AND word_idx = 0`,
        { n: 2 },
      ],
      // Job 3: utterances 64 and -1 beside 0..2, each with its words: nothing repeats, none is orphaned.
      [
        `INSERT INTO utterances SELECT job_id, source, u.idx, start, "end", confidence, channel, speaker, language, text, job_created_at
         FROM utterances, (VALUES (64), (-1)) u(idx) WHERE job_id = ${NTH_JOB} AND utterance_idx = 0`,
        { n: 3 },
      ],
      [
        `INSERT INTO words SELECT job_id, source, u.idx, word_idx, word, start, "end", confidence, job_created_at
         FROM words, (VALUES (64), (-1)) u(idx) WHERE job_id = ${NTH_JOB} AND utterance_idx = 0`,
        { n: 3 },
      ],
      // Job 4: utterance -64 stored twice, and words of utterances 128 and 65, which are none (their
      // bits are those of utterances 0 and 1).
      [
        `INSERT INTO utterances SELECT job_id, source, -64, start, "end", confidence, channel, speaker, language, text, job_created_at
         FROM utterances, range(2) WHERE job_id = ${NTH_JOB} AND utterance_idx = 0`,
        { n: 4 },
      ],
      [
        `INSERT INTO words SELECT job_id, source, u.idx, word_idx, word, start, "end", confidence, job_created_at
         FROM words, (VALUES (128), (65)) u(idx) WHERE job_id = ${NTH_JOB} AND utterance_idx = 0`,
        { n: 4 },
      ],
    ]);
    await withFile(path, async (db) => {
      const [job2, job4] = [await jobAt(db, 2), await jobAt(db, 4)];
      expect(await plain(db, PLAIN.duplicateWords)).toEqual([job2]);
      for (const shift of SHIFTS) expect(ids(await duplicateWordJobs(db, shift))).toEqual([job2]);
      expect(await plain(db, PLAIN.duplicateUtterances)).toEqual([job4]);
      expect(ids(await duplicateUtteranceJobs(db))).toEqual([job4]);
      expect(await plain(db, PLAIN.orphanWords)).toEqual([job4]);
      expect(ids(await orphanWordJobs(db))).toEqual([job4]);
    });
  });

  it('finds words of no utterance, and only those, whichever list they are in', async () => {
    const path = soundFile('orphans');
    // Job 5 loses one utterance of three; job 6 loses every utterance of its first list; job 7 a word.
    await writeSql(path, [
      [`DELETE FROM utterances WHERE job_id = ${NTH_JOB} AND utterance_idx = 1`, { n: 5 }],
      [
        `DELETE FROM utterances WHERE job_id = ${NTH_JOB}
         AND source = (SELECT min(source) FROM utterances WHERE job_id = ${NTH_JOB})`,
        { n: 6 },
      ],
      [`DELETE FROM words WHERE job_id = ${NTH_JOB} AND word_idx = 0`, { n: 7 }],
    ]);
    await withFile(path, async (db) => {
      const expected = await plain(db, PLAIN.orphanWords);
      expect(expected).toEqual([await jobAt(db, 5), await jobAt(db, 6)].sort());
      expect(ids(await orphanWordJobs(db))).toEqual(expected);
      expect(await duplicateUtteranceJobs(db)).toEqual([]);
    });
  });
});

async function jobAt(db: Database, n: number): Promise<string> {
  const [row] = await db.all<{ id: string }>(`SELECT ${NTH_JOB} AS id`, { n });
  if (!row) throw new Error(`no job ${n}`);
  return row.id;
}
