/**
 * The JSON text of each item of a list envelope, cut out of the body as it was received. The store
 * keeps every record's text as `raw` and hashes it; taking it from the body costs one pass over the
 * characters (strings skipped with indexOf), where JSON.stringify of the parsed records rebuilt
 * 230 MB of text for a 2,000-job backfill (bench/, BENCHMARKS.md).
 *
 * Only the structure is followed: the body was already parsed by JSON.parse, so it is valid JSON.
 * Anything unexpected (no `items` key, `items` twice, not an array) returns undefined and the caller
 * falls back to stringifying the parsed items.
 */

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,
const COLON = 0x3a; // :
const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]

/** Index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    if (end < 0) return text.length;
    let backslashes = 0;
    for (let i = end - 1; text.charCodeAt(i) === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * The text of every element of the array whose `[` is at `open`, and the index of its `]`;
 * undefined when the array is not closed.
 */
function elementTexts(text: string, open: number): { texts: string[]; close: number } | undefined {
  const texts: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = open + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      if (start < 0) start = i;
      i = stringEnd(text, i);
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (start < 0) start = i;
      depth++;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth === 0) {
        if (start >= 0) texts.push(trimmed(text, start, i));
        return { texts, close: i };
      }
      depth--;
    } else if (code === COMMA && depth === 0) {
      texts.push(trimmed(text, start, i));
      start = -1;
    } else if (start < 0 && !isSpace(code)) {
      start = i; // a number, true, false or null
    }
  }
  return undefined;
}

function trimmed(text: string, start: number, end: number): string {
  let last = end;
  while (last > start && isSpace(text.charCodeAt(last - 1))) last--;
  return text.slice(start, last);
}

/**
 * The items' texts in order, or undefined when the body is not an envelope whose `items` this scan
 * can follow, or when it finds another count than `expected` (the items JSON.parse returned).
 */
export function itemTexts(body: string, expected: number): string[] | undefined {
  let i = 0;
  while (i < body.length && isSpace(body.charCodeAt(i))) i++;
  if (body.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  let depth = 0;
  let expectKey = false;
  let items: string[] | undefined;
  for (; i < body.length; i++) {
    const code = body.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(body, i);
      const isItemsKey = depth === 1 && expectKey && body.slice(i + 1, end) === 'items';
      if (depth === 1) expectKey = false;
      i = end;
      if (!isItemsKey) continue;
      // JSON.parse keeps the last of repeated keys; do not guess which one this is.
      if (items) return undefined;
      let open = end + 1;
      while (isSpace(body.charCodeAt(open)) || body.charCodeAt(open) === COLON) open++;
      if (body.charCodeAt(open) !== OPEN_ARRAY) return undefined;
      const array = elementTexts(body, open);
      if (!array) return undefined;
      items = array.texts;
      i = array.close;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth++;
      expectKey = depth === 1;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth--;
    } else if (code === COMMA && depth === 1) {
      expectKey = true;
    }
  }
  return items?.length === expected ? items : undefined;
}
