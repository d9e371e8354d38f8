/**
 * Reading a page on the main thread (src/sync/page-rows.ts): decodePageGivingWay, which the sync
 * runs for pages it does not send to the decode thread, reads a body into the rows decodePage reads,
 * and lets the event loop run between records, so that the writer's DuckDB callbacks wait for one
 * record at most instead of a whole page.
 */
import { describe, expect, it } from 'vitest';
import { generateDataset } from '../src/simulator/index.js';
import { decodePage, decodePageGivingWay } from '../src/sync/page-rows.js';

function envelope(records: readonly unknown[]): Buffer {
  return Buffer.from(
    JSON.stringify({ first: null, current: null, next: '/v2/transcription?offset=9', items: records }),
  );
}

describe('decodePageGivingWay', () => {
  it('reads a body into the rows decodePage reads, the anchor left out, a bad record quarantined', async () => {
    const records: unknown[] = generateDataset({ preRecorded: 6, live: 4, seed: 9 });
    records.push({ id: 'not-a-job' });
    const body = envelope(records);
    const paced = await decodePageGivingWay(body, 1);
    const here = decodePage(body, 1);
    if (!paced.ok || !here.ok) throw new Error('a well-formed body was found broken');
    expect(paced.next).toBe(here.next);
    expect(paced.value.ids).toEqual(here.value.ids);
    expect(paced.value.firstCreatedAt).toEqual(here.value.firstCreatedAt);
    const { rows, ...batch } = paced.value.batch;
    const { rows: hereRows, ...hereBatch } = here.value.batch;
    expect(batch).toEqual(hereBatch);
    expect(batch.jobs.size).toBe(9);
    expect(batch.quarantine).toHaveLength(1);
    for (const table of ['jobs', 'utterances', 'modules', 'words', 'lists', 'dict'] as const) {
      expect(rows[table].orderedColumns()).toEqual(hereRows[table].orderedColumns());
    }
    expect(rows.words.rowCount).toBeGreaterThan(0);
  });

  it('lets the event loop run between records', async () => {
    const records = generateDataset({ preRecorded: 8, live: 8, seed: 3 });
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const read = await decodePageGivingWay(envelope(records), 0);
    ticking = false;
    expect(read.ok).toBe(true);
    // Two steps a record (validated and hashed, then mapped): a page read in one go lets in one turn.
    expect(turns).toBeGreaterThanOrEqual(2 * records.length);
  });

  it('reports a body that is not JSON, or not an envelope, as decodePage does', async () => {
    for (const body of [Buffer.from('{"items": ['), Buffer.from('{"items": 3}')]) {
      const paced = await decodePageGivingWay(body, 0);
      expect(paced.ok).toBe(false);
      expect(paced).toEqual(decodePage(body, 0));
    }
  });
});
