import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemTexts } from '../src/api/item-texts.js';

/** An envelope with `items` among other keys, written with the given spacing. */
function envelope(items: readonly unknown[], space?: number): string {
  return JSON.stringify({ first: 'x?offset=0', next: null, items, current: '"items":[1]' }, null, space);
}

describe('item texts cut from a list body', () => {
  it('gives each item exactly as it was written, spacing and escapes kept', () => {
    const body =
      '{ "next" : null , "items" : [ {"id":"a","t":"quote \\" and \\\\ and } ]"} ,\n' +
      '  {"id":"b","n":[1, 2.50, {"x":"]"}]}, "plain", 12, null ] , "first":"items"}';
    expect(itemTexts(body, 5)).toEqual([
      '{"id":"a","t":"quote \\" and \\\\ and } ]"}',
      '{"id":"b","n":[1, 2.50, {"x":"]"}]}',
      '"plain"',
      '12',
      'null',
    ]);
  });

  it('parses back to the items JSON.parse found, for any JSON items', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 8 }),
        fc.constantFrom(undefined, 2),
        (items, space) => {
          const body = envelope(items, space);
          const parsed = (JSON.parse(body) as { items: unknown[] }).items;
          const texts = itemTexts(body, parsed.length);
          expect(texts?.map((text) => JSON.parse(text))).toEqual(parsed);
        },
      ),
    );
  });

  it('gives nothing when it cannot tell which items JSON.parse kept', () => {
    expect(itemTexts('{"items":[1],"items":[2]}', 1)).toBeUndefined();
    expect(itemTexts('{"next":null}', 0)).toBeUndefined();
    expect(itemTexts('[{"items":[1]}]', 1)).toBeUndefined();
    expect(itemTexts('{"items":{"a":1}}', 1)).toBeUndefined();
    expect(itemTexts('{"items":[1,2]}', 3)).toBeUndefined();
  });

  it('does not take a nested items key for the envelope one', () => {
    expect(itemTexts('{"meta":{"items":[9,9,9]},"items":[1]}', 1)).toEqual(['1']);
    expect(itemTexts('{"items":[]}', 0)).toEqual([]);
  });
});
