/**
 * A page's records as the engine needs them: the id of every item (the walk's anchors), the first
 * one's created_at (slice boundaries), and the records past the walk's anchor normalized into one
 * RowBatch. The page's parsed objects and texts are let go once this returns, wherever it runs: on
 * the main thread for small pages, in the decode thread for big ones (decode-thread.ts).
 */
import { type BodyProblem, readListBody } from '../api/list-body.js';
import { normalizeRecords } from '../normalize/normalize.js';
import type { RowBatch } from '../normalize/row-batch.js';
import { createdAtOf, idOf } from './slices.js';

export interface PageRows {
  /** Each item's `id` when it is a string, in order, the skipped ones included: the page's count. */
  readonly ids: readonly (string | undefined)[];
  /** The first item's created_at, when readable. */
  readonly firstCreatedAt: Date | undefined;
  /** The items after the first `skip`, validated, hashed and mapped (src/normalize). */
  readonly batch: RowBatch;
}

export function pageRows(
  items: readonly unknown[],
  texts: readonly string[] | undefined,
  skip: number,
): PageRows {
  return {
    ids: items.map(idOf),
    firstCreatedAt: createdAtOf(items[0]),
    batch: normalizeRecords(items.slice(skip), texts?.slice(skip)),
  };
}

/** A 2xx body read into PageRows, or what is wrong with it (the client's BodyDecoder result). */
export function decodePage(
  body: Uint8Array,
  skip: number,
): { readonly ok: true; readonly value: PageRows; readonly next: string | null } | BodyProblem {
  const read = readListBody(body);
  if (!read.ok) return read;
  return { ok: true, value: pageRows(read.items, read.texts, skip), next: read.next };
}
