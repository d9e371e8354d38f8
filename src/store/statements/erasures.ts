/**
 * Erasure: the jobs a selection matches (temp table `_tsync_erase`), their content deleted, their row
 * kept with its billing facts (or, for a job known only by the quarantine, an erased_quarantine row),
 * one `erasures` row per erasure; src/store/erase.ts composes them.
 */
import type { JobKind } from '../../kinds.js';
import type { Database, RowSource } from '../database.js';
import { countOf, only, queryText } from './queries.js';

/** Which jobs an erasure selects; every field given must match, an absent one selects all. */
export interface ErasureSelection {
  readonly ids?: readonly string[];
  readonly metadata?: { readonly key: string; readonly value: string };
  /** created_at before this instant. */
  readonly before?: Date;
  /** created_at at or after this instant. */
  readonly after?: Date;
  readonly kind?: JobKind;
  /** Only jobs marked deleted (a reconcile's `--on-delete erase`). */
  readonly deleted?: boolean;
}

/** Fills `_tsync_erase` with the jobs `selection` matches, erased or not. */
export async function selectForErasure(db: RowSource, selection: ErasureSelection): Promise<void> {
  await db.all(queryText('erase-select'), {
    ids: selection.ids ? [...selection.ids] : null,
    key: selection.metadata?.key ?? null,
    value: selection.metadata?.value ?? null,
    before: selection.before ?? null,
    after: selection.after ?? null,
    kind: selection.kind ?? null,
    deleted: selection.deleted === true,
  });
}

/**
 * Per kind, of `_tsync_erase`: jobs to erase, already erased, and the first `shown` ids to erase;
 * `unknown` for quarantined records of no known kind.
 */
export interface ErasurePreview {
  readonly kind: JobKind | 'unknown';
  readonly jobs: number;
  readonly already: number;
  readonly ids: string[];
}

export const previewErasure = (db: RowSource, params: { shown: number }) =>
  db.all<ErasurePreview>(queryText('erase-preview'), only(params, 'shown'));

/**
 * Erases the jobs of `_tsync_erase` not erased yet, at `now`, keeping the custom_metadata keys
 * `keep`: those of `jobs` keep their billing facts, those known only by the quarantine leave an
 * erased_quarantine row. Returns how many. Run it in a transaction with recordErasure.
 */
export async function eraseSelected(
  db: Database,
  params: { now: Date; keep: readonly string[] },
): Promise<number> {
  await db.run(queryText('erase-content'));
  // NULL for none: DuckDB binds no empty list of an unknown type.
  const keep = params.keep.length > 0 ? [...params.keep] : null;
  const jobs = await countOf(db.all(queryText('erase-jobs'), { now: params.now, keep }), 'Count');
  const quarantined = await countOf(db.all(queryText('erase-quarantined'), { now: params.now }), 'Count');
  return jobs + quarantined;
}

export const recordErasure = (db: Database, params: { now: Date; selector: string; jobs: number }) =>
  db.run(queryText('erase-record'), params);

/** Jobs erased while known only by the quarantine (by id); 0: no load can store one of them. */
export const tombstoneCount = (db: RowSource) => countOf(db.all(queryText('erase-tombstones-count')), 'n');

/** Ids of jobs erased while known only by the quarantine that a load has since stored unerased. */
export const tombstonedLoaded = async (db: RowSource): Promise<string[]> =>
  (await db.all<{ id: string }>(queryText('erase-tombstoned-loaded'))).map((row) => row.id);

/** Drops the tombstones of jobs `jobs` holds erased. */
export const forgetErasedTombstones = (db: Database) => db.run(queryText('erase-tombstones-forget'));

/** Erasures whose bytes the file may still hold (not rewritten since). */
export const unwrittenErasures = (db: RowSource) => countOf(db.all(queryText('erase-unwritten')), 'n');

/** In the copy a rewrite attached as tsync_compacted: its erasures are written out. */
export const markErasuresRewritten = (db: Database, params: { now: Date }) =>
  db.run(queryText('erase-rewritten'), params);
