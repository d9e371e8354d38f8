/**
 * Words (spec 2.8) come by the million, and zod over each one costs as much as the whole DuckDB
 * load. So a word array is checked by a hand-written loop that accepts exactly what
 * `wordSchema` accepts; only a word the loop rejects goes through zod, which then reports the issues
 * (same messages, same paths) as full validation would.
 */
import { z } from 'zod';

export const wordSchema = z.looseObject({
  word: z.string().nullish(),
  start: z.number().nullish(),
  end: z.number().nullish(),
  confidence: z.number().nullish(),
});

export type Word = z.infer<typeof wordSchema>;

const slowWords = z.array(wordSchema).nullish();

function isOptionalNumber(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'number' && Number.isFinite(value));
}

/** True when `wordSchema` would accept `value`; kept in step with it by a property test. */
export function isValidWord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const w = value as Record<string, unknown>;
  const word = w['word'];
  return (
    (word === undefined || word === null || typeof word === 'string') &&
    isOptionalNumber(w['start']) &&
    isOptionalNumber(w['end']) &&
    isOptionalNumber(w['confidence'])
  );
}

/** An optional array of words, checked by the fast loop; parsed, it is the input array itself. */
export const wordsSchema = z.custom<Word[] | null | undefined>().superRefine((value, ctx) => {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    for (const issue of slowWords.safeParse(value).error?.issues ?? []) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
    }
    return;
  }
  for (let i = 0; i < value.length; i++) {
    const word: unknown = value[i];
    if (isValidWord(word)) continue;
    for (const issue of wordSchema.safeParse(word).error?.issues ?? []) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: [i, ...issue.path], input: word });
    }
  }
});
