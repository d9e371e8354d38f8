/**
 * The mirror's facts (storm/mirror-facts.ts, shared with the storms) and the test assertion
 * built on them.
 */
import { expect } from 'vitest';
import { actualFacts, expectedFacts, roundBilling } from './storm/mirror-facts.js';

export {
  actualFacts,
  expectedFacts,
  type MirrorFacts,
  readCount,
  roundBilling,
  utteranceLists,
} from './storm/mirror-facts.js';

type Json = Record<string, unknown>;

/** The file holds exactly `records`: every job and status, utterance and word count, billing sum, no duplicates. */
export async function expectMirror(dbPath: string, records: readonly Json[]): Promise<void> {
  const expected = expectedFacts(records);
  const actual = await actualFacts(dbPath);
  expect(actual.jobs).toEqual(expected.jobs);
  expect(actual.utterances).toBe(expected.utterances);
  expect(actual.words).toBe(expected.words);
  expect(roundBilling(actual.billing)).toEqual(roundBilling(expected.billing));
  expect(actual.duplicateJobs).toBe(0);
  expect(actual.duplicateWordKeys).toBe(0);
}
