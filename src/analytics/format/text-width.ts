/**
 * How many terminal columns a text takes, for the terminal table's padding and cutting: a
 * user-perceived character (a grapheme cluster) takes 2 columns when it is East Asian Wide or
 * Fullwidth (CJK ideographs, kana, Hangul, fullwidth forms) or an emoji shown as one, 0 when it is
 * a lone combining mark, a control or a zero-width character, and 1 otherwise. A base letter with
 * combining marks is one cluster of 1 column; a flag or a ZWJ family emoji one cluster of 2.
 * East Asian Ambiguous characters (Greek, Cyrillic, box drawing) count 1, as terminals outside
 * CJK locales show them.
 */

/** Printable ASCII only: one column per character, no segmenting needed. */
const PLAIN = /^[\x20-\x7e]*$/;

/** The first code point of a cluster that takes no column. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cc}\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/u;

/**
 * East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, W and F, by block), and
 * emoji presented as emoji; U+FE0F asks for the emoji presentation of the character before it.
 */
const WIDE = new RegExp(
  [
    '^(?:[\\u1100-\\u115f\\u231a\\u231b\\u2329\\u232a\\u2e80-\\u303e\\u3041-\\u33ff\\u3400-\\u4dbf',
    '\\u4e00-\\u9fff\\ua000-\\ua4cf\\ua960-\\ua97f\\uac00-\\ud7a3\\uf900-\\ufaff\\ufe10-\\ufe19',
    '\\ufe30-\\ufe6f\\uff00-\\uff60\\uffe0-\\uffe6\\u{16fe0}-\\u{16fe4}\\u{17000}-\\u{18cff}',
    '\\u{1b000}-\\u{1b2ff}\\u{1f200}-\\u{1f2ff}\\u{20000}-\\u{2fffd}\\u{30000}-\\u{3fffd}]',
    '|\\p{Emoji_Presentation})|\\ufe0f',
  ].join(''),
  'u',
);

/** Made on the first text that needs it: most tables are ASCII, and a command starts faster without. */
let segmenter: Intl.Segmenter | undefined;

function clusters(text: string): Iterable<Intl.SegmentData> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}

/** Terminal columns `text` takes (no tabs or line breaks expected: the table replaces them). */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.length;
  let width = 0;
  for (const { segment } of clusters(text)) width += clusterWidth(segment);
  return width;
}

/** `text` cut to at most `width` columns, whole clusters only, ending with `…` when cut. */
export function cutToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of clusters(text)) {
    const next = clusterWidth(segment);
    if (used + next > width - 1) break;
    kept += segment;
    used += next;
  }
  return `${kept}…`;
}

/** `text` padded with spaces to `width` columns, on the left when `right`-aligned. */
export function padToWidth(text: string, width: number, right: boolean): string {
  const pad = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return right ? `${pad}${text}` : `${text}${pad}`;
}

function clusterWidth(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  return WIDE.test(cluster) ? 2 : 1;
}
