/**
 * The duplicate checks of `verify` group their table in parts (hash buckets of job_id) so that a
 * large history fits a reader's memory: every part is checked, and each broken job is named once.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openReadOnly } from '../../../src/load/open-file.js';
import { queryText } from '../../../src/load/statements/queries.js';
import {
  type BrokenRow,
  childRowCounts,
  duplicateWordJobs,
  inParts,
} from '../../../src/load/statements/verify.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { loadRecords, writeSql } from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

describe('verify in parts', () => {
  it('finds a word stored twice whichever part its job falls in, and names the job once', async () => {
    const path = join(tempDir(), 'parts.duckdb');
    await loadRecords(
      path,
      generateDataset({ seed: 41, preRecorded: 6, live: 6, utterancesPerJob: 3, wordsPerUtterance: 4 }),
    );
    // Two jobs, each with one word stored a second time.
    await writeSql(
      path,
      `INSERT INTO words SELECT * FROM words
       WHERE job_id IN (SELECT DISTINCT job_id FROM words ORDER BY job_id LIMIT 2) AND word_idx = 0 AND utterance_idx = 0`,
    );
    const db = await openReadOnly(path);
    try {
      const expected = (
        await db.all<{ id: string }>(
          'SELECT DISTINCT job_id AS id FROM words GROUP BY job_id, source, utterance_idx, word_idx HAVING count(*) > 1',
        )
      )
        .map((r) => r.id)
        .sort();
      expect(expected.length).toBeGreaterThanOrEqual(2);
      expect((await duplicateWordJobs(db)).map((r) => r.id).sort()).toEqual(expected);
      // A part of ~10 words: as many parts as a history of millions of words has at the real size.
      const { words } = await childRowCounts(db);
      const asked: number[] = [];
      const found = await inParts(
        words,
        async (part): Promise<BrokenRow[]> => {
          asked.push(part.part);
          return db.all(queryText('verify-words-duplicates'), { ...part });
        },
        10,
      );
      expect(asked).toEqual([...Array(Math.ceil(words / 10)).keys()]);
      expect(found.map((r) => r.id).sort()).toEqual(expected);
    } finally {
      await db.close();
    }
  });
});
