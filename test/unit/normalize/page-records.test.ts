/**
 * normalizePage (src/normalize/page-records.ts) decides load or quarantine itself: a page whose
 * scan only found its items' spans and heads (the client's default scanner) gives the same records,
 * byte for byte, as one whose scan checked each record on the way (RecordScanner).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeadScanner, scanListBody } from '../../../src/extract/json-scan.js';
import { normalizePage } from '../../../src/normalize/page-records.js';
import { RecordScanner } from '../../../src/normalize/record-scan.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { batchArb } from '../../helpers/mutate-record.js';

/** The page of `texts` normalized after each scan: [spans only, checked in the scan]. */
function bothWays(texts: readonly string[]) {
  const body = Buffer.from(`{"next":null, "items":[ ${texts.join(' ,\n')} ]}`);
  return [
    normalizePage({ body, items: scanListBody(body, HeadScanner).items }),
    normalizePage({ body, items: scanListBody(body, RecordScanner).items }),
  ];
}

describe('normalizePage', () => {
  it('loads and quarantines the same records whoever scanned the page', () => {
    const bases = generateDataset({
      seed: 5,
      preRecorded: 8,
      live: 8,
      utterancesPerJob: 2,
      wordsPerUtterance: 3,
    });
    let loaded = 0;
    let quarantined = 0;
    fc.assert(
      fc.property(batchArb(bases), (make) => {
        const [spans, checked] = bothWays(make('p').map((item) => JSON.stringify(item)));
        expect(spans).toStrictEqual(checked);
        loaded += checked?.jobs.length ?? 0;
        quarantined += checked?.quarantine.length ?? 0;
      }),
      { numRuns: 100 },
    );
    expect(loaded).toBeGreaterThan(0);
    expect(quarantined).toBeGreaterThan(0);
  });

  it('keeps the text DuckDB maps apart from raw the same way for odd names and escapes', () => {
    const [a, b, c, d] = generateDataset({
      seed: 6,
      preRecorded: 4,
      live: 0,
      utterancesPerJob: 1,
      wordsPerUtterance: 1,
    }).map((record) => JSON.stringify(record).slice(1, -1));
    const texts = [
      `{${a},"custom":"\\ud800"}`,
      `{${b},"x":1,"x":2}`,
      `{${c},"\\u0078":{"\\u0000":1}}`,
      `{${d}}`,
    ];
    const [spans, checked] = bothWays(texts);
    expect(spans).toStrictEqual(checked);
    expect(checked?.jobs.map((job) => job.doc === undefined)).toStrictEqual([false, false, false, true]);
  });
});
