/**
 * The list envelope (spec 2.1) every list operation answers with. Only the envelope is checked
 * here; the items stay `unknown` and are validated one by one (src/normalize/records), so one odd record
 * cannot fail a whole page.
 *
 * Lenient on purpose: unknown fields pass through, and `first`/`current` may be missing or null,
 * since nothing reads them (the walker builds its own URLs). `next` and `items` are what paging
 * depends on, so they are required.
 */
import { z } from 'zod';

export const listEnvelopeSchema = z.looseObject({
  first: z.string().nullish(),
  current: z.string().nullish(),
  /** null when there is no next page. */
  next: z.string().nullable(),
  items: z.array(z.unknown()),
});

export type ListEnvelope = z.output<typeof listEnvelopeSchema>;

export type EnvelopeResult =
  | { readonly ok: true; readonly envelope: ListEnvelope }
  | { readonly ok: false; readonly problem: string };

/** Checks a parsed JSON body; `problem` names the first offending field, for an error message. */
export function parseListEnvelope(body: unknown): EnvelopeResult {
  const parsed = listEnvelopeSchema.safeParse(body);
  if (parsed.success) return { ok: true, envelope: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
  return { ok: false, problem: `${where}: ${issue?.message ?? 'invalid'}` };
}
