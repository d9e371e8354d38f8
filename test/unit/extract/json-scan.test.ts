/**
 * The byte scan of list bodies (src/extract/json-scan.ts) with the record shape derived from the
 * schema (src/normalize/record-shape.ts): it reads JSON as JSON.parse does, finds each item's exact
 * text and heads, and vouches for no record the schema refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ItemScan, JsonSyntaxError, scanListBody } from '../../../src/extract/json-scan.js';
import { HEADS_ONLY } from '../../../src/extract/json-shape.js';
import { RECORD_SHAPE } from '../../../src/normalize/record-shape.js';
import { validateJobRecord } from '../../../src/normalize/records/validate.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { allFixtures } from '../../fixtures/fixtures.js';
import { batchArb, binaryString } from '../../helpers/mutate-record.js';

const HEADS = ['id', 'kind', 'status', 'created_at'] as const;

function scan(text: string): { body: Buffer; items: readonly ItemScan[] } {
  const body = Buffer.from(text);
  return { body, items: scanListBody(body, RECORD_SHAPE).items };
}

/** What the scan says of each item of `items`, checked against JSON.parse and the schema. */
function expectTrueTo(items: readonly unknown[]): number {
  const { body, items: scanned } = scan(JSON.stringify({ first: null, current: null, next: null, items }));
  expect(scanned).toHaveLength(items.length);
  let vouched = 0;
  scanned.forEach((item, i) => {
    const text = body.toString('utf8', item.start, item.end);
    expect(text).toBe(JSON.stringify(items[i]));
    const record = items[i] as Record<string, unknown> | null;
    for (const head of HEADS) {
      const value =
        typeof record === 'object' && record !== null && !Array.isArray(record) ? record[head] : undefined;
      expect(item.heads[head]).toBe(typeof value === 'string' ? value : undefined);
    }
    if (item.checked) {
      vouched += 1;
      expect(validateJobRecord(JSON.parse(text)).ok, text.slice(0, 200)).toBe(true);
    }
  });
  return vouched;
}

describe('the list body scan', () => {
  it('vouches for every generated record and every fixture', () => {
    const records = [
      ...generateDataset({ seed: 3, preRecorded: 150, live: 150, utterancesPerJob: 4, wordsPerUtterance: 4 }),
      ...allFixtures(),
    ];
    expect(expectTrueTo(records)).toBe(records.length);
  });

  it('never vouches for a record the schema refuses', () => {
    const bases = generateDataset({
      seed: 41,
      preRecorded: 10,
      live: 10,
      utterancesPerJob: 3,
      wordsPerUtterance: 3,
    });
    let vouched = 0;
    let refused = 0;
    fc.assert(
      fc.property(batchArb(bases), (make) => {
        const items = make('t');
        vouched += expectTrueTo(items);
        refused += items.filter((item) => !validateJobRecord(item).ok).length;
      }),
      { numRuns: 300 },
    );
    expect(vouched).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('takes a body to be JSON exactly when JSON.parse does', () => {
    const base = JSON.stringify({
      next: null,
      items: [{ id: 'a', n: [1.5e3, -0, true, null, 'é\\u00e9\\n'] }],
    });
    fc.assert(
      fc.property(fc.nat(base.length - 1), binaryString(3), (at, insert) => {
        const text = base.slice(0, at) + insert + base.slice(at + 1);
        let parsed = true;
        try {
          JSON.parse(text);
        } catch {
          parsed = false;
        }
        let scanned = true;
        try {
          scanListBody(Buffer.from(text), HEADS_ONLY);
        } catch (error) {
          expect(error).toBeInstanceOf(JsonSyntaxError);
          scanned = false;
        }
        expect(scanned, text).toBe(parsed);
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads nesting of any depth without a stack of its own', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const { items } = scan(`{"next":null,"items":[{"id":"x","custom_metadata":{"d":${deep}}}]}`);
    expect(items[0]?.heads.id).toBe('x');
  });

  it('keeps the last of a repeated head, as JSON.parse does, and asks a repeated member to be parsed', () => {
    const { items } = scan('{"next":null,"items":[{"id":"first","id":"last","status":7,"status":"done"}]}');
    expect(items[0]?.heads).toMatchObject({ id: 'last', status: 'done' });
    expect(items[0]?.plain).toBe(false);
  });

  it('asks a lone surrogate or an escaped member name to be parsed', () => {
    for (const item of ['{"id":"a","x":"\\ud800"}', '{"\\u0069d":"a"}', '{"id":"a","r":{"\\u0000":1}}'])
      expect(scan(`{"next":null,"items":[${item}]}`).items[0]?.plain, item).toBe(false);
  });
});
