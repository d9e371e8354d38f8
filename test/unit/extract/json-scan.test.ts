/**
 * The byte scan of list bodies (src/extract/json-scan.ts), its items read by the record scanner
 * (src/normalize/record-scan.ts, the shape derived from the schema) or by the heads alone: it reads
 * JSON as JSON.parse does, finds each item's exact text and heads, and vouches for no record the
 * schema refuses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeadScanner, JsonSyntaxError, scanListBody } from '../../../src/extract/json-scan.js';
import { validateJobRecord } from '../../../src/normalize/page-records.js';
import { type RecordScan, RecordScanner } from '../../../src/normalize/record-scan.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { allFixtures } from '../../fixtures/fixtures.js';
import { batchArb, binaryString } from '../../helpers/mutate-record.js';

const HEADS = ['id', 'kind', 'status', 'created_at'] as const;

function scan(text: string): { body: Buffer; items: readonly RecordScan[] } {
  const body = Buffer.from(text);
  return { body, items: scanListBody(body, RecordScanner).items };
}

/** A list body's text up to its first item. */
const BODY_HEAD = '{"first":null,"current":null,"next":null,"items":[';

/** The heads of a JSON value, as the scan must find them: a string member of an object, or none. */
function headsOf(item: unknown): (string | undefined)[] {
  const record = item as Record<string, unknown> | null;
  return HEADS.map((head) => {
    const value =
      typeof record === 'object' && record !== null && !Array.isArray(record) ? record[head] : undefined;
    return typeof value === 'string' ? value : undefined;
  });
}

/**
 * What the scan says of each item of `items` (JSON values), checked against JSON.stringify and the
 * schema: the items it vouched for, every one of which the schema accepts, and the items the
 * schema refuses.
 */
function expectTrueTo(items: readonly unknown[]): { vouched: number; refused: number } {
  const texts = items.map((item) => JSON.stringify(item));
  // JSON.stringify of the whole body, written from its items' texts; each item's exact text is the
  // bytes from its start to its end.
  const { items: scanned } = scan(`${BODY_HEAD}${texts.join(',')}]}`);
  let at = Buffer.byteLength(BODY_HEAD);
  const spans = texts.map((text) => {
    const span = [at, at + Buffer.byteLength(text)];
    at = (span[1] as number) + 1;
    return span;
  });
  expect(scanned.map((item) => [item.start, item.end])).toStrictEqual(spans);
  expect(scanned.map((item) => HEADS.map((head) => item.heads[head]))).toStrictEqual(items.map(headsOf));
  // The heads alone, as the client reads them by default: the same spans, the walk's heads.
  const heads = scanListBody(Buffer.from(`${BODY_HEAD}${texts.join(',')}]}`), HeadScanner).items;
  expect(heads.map((item) => [item.start, item.end])).toStrictEqual(spans);
  expect(heads.map((item) => [item.heads.id, item.heads.created_at])).toStrictEqual(
    items.map(headsOf).map(([id, , , createdAt]) => [id, createdAt]),
  );
  let vouched = 0;
  let refused = 0;
  scanned.forEach((item, i) => {
    const text = texts[i] as string;
    // The item's text, parsed: the record the schema is asked of, once for both counts.
    const valid = validateJobRecord(JSON.parse(text)).ok;
    if (!valid) refused += 1;
    if (item.checked) {
      vouched += 1;
      expect(valid, text.slice(0, 200)).toBe(true);
    }
  });
  return { vouched, refused };
}

describe('the list body scan', () => {
  it('vouches for every generated record and every fixture', () => {
    const records = [
      ...generateDataset({ seed: 3, preRecorded: 150, live: 150, utterancesPerJob: 4, wordsPerUtterance: 4 }),
      ...allFixtures(),
    ];
    expect(expectTrueTo(records)).toEqual({ vouched: records.length, refused: 0 });
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
        const counts = expectTrueTo(make('t'));
        vouched += counts.vouched;
        refused += counts.refused;
      }),
      { numRuns: 100 },
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
          scanListBody(Buffer.from(text), HeadScanner);
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
    const heads = (text: string) => scanListBody(Buffer.from(text), HeadScanner).items[0]?.heads;
    expect(heads('{"next":null,"items":[{"id":"first","id":"last","created_at":7}]}')).toStrictEqual({
      id: 'last',
    });
    expect(heads('{"next":null,"items":[{"\\u0069d":"a","id":1,"created_at":"t"}]}')).toStrictEqual({
      created_at: 't',
    });
  });

  it('asks a lone surrogate or an escaped member name to be parsed', () => {
    for (const item of ['{"id":"a","x":"\\ud800"}', '{"\\u0069d":"a"}', '{"id":"a","r":{"\\u0000":1}}'])
      expect(scan(`{"next":null,"items":[${item}]}`).items[0]?.plain, item).toBe(false);
  });
});
