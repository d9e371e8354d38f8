/**
 * Erasure of jobs' content: an erased job keeps its billing facts and loses the rest
 * (docs/decisions/0021-erasure-keeps-billing-facts.md). `rewriteErasedFile` then rewrites the file
 * as `compact` does, since DuckDB reuses freed blocks without clearing them; interrupted before its
 * rename, the erasures stay unwritten for the next one or sync.
 */
import { onOutOfMemory } from '../errors.js';
import type { Logger } from '../log.js';
import { type DuckDbMemory, planMemory } from '../memory/budget.js';
import { RAW_LIMIT_BYTES } from '../memory/reader-memory.js';
import type { Database } from './database.js';
import { type CompactResult, compactFile } from './file/rewrite-file.js';
import { openWriter } from './open-file.js';
import {
  type ErasureSelection,
  eraseSelected,
  forgetErasedTombstones,
  markErasuresRewritten,
  recordErasure,
  selectForErasure,
  tombstonedLoaded,
  unwrittenErasures,
} from './statements/erasures.js';

export interface EraseOptions {
  readonly selection: ErasureSelection;
  /**
   * The kind of selector, recorded in `erasures` ('job', 'metadata+before', 'deleted-upstream',
   * 'erased-before').
   */
  readonly selector: string;
  /** Keys of custom_metadata an erased job keeps (`--erase-keep-metadata`). */
  readonly keep: readonly string[];
  readonly now?: Date;
}

/** Erases the selected jobs not erased yet, in one transaction (or the caller's); returns how many. */
export function eraseJobs(db: Database, options: EraseOptions): Promise<number> {
  const now = options.now ?? new Date();
  return db.transaction(async () => {
    await selectForErasure(db, options.selection);
    const jobs = await eraseSelected(db, { now, keep: options.keep });
    if (jobs > 0) await recordErasure(db, { now, selector: options.selector, jobs });
    return jobs;
  });
}

/**
 * Jobs erased while known only by the quarantine, whose record now validated and was loaded in the
 * caller's open transaction: erased again before it commits, so only their billing facts stay, and
 * recorded as an erasure (selector `erased-before`) that the run's end rewrites out of the file.
 * Their tombstones go: the erased `jobs` row keeps their content out from then on. Returns how many.
 */
export async function eraseLoadedTombstoned(
  db: Database,
  options: { readonly keep: readonly string[]; readonly now?: Date },
): Promise<number> {
  const ids = await tombstonedLoaded(db);
  if (ids.length === 0) return 0;
  const erased = await eraseJobs(db, { selection: { ids }, selector: 'erased-before', ...options });
  await forgetErasedTombstones(db);
  return erased;
}

/**
 * The file at `path` opened, rewritten if an erasure's bytes may be in it, and closed, under the
 * caller's writer lock: within `memory`, or if `raw` does not fit, with one thread and RAW_LIMIT_BYTES.
 * The writer's close merges nothing (`compactAfter: Infinity`): it would write to the replaced file.
 */
export async function rewriteErasedFile(
  path: string,
  options: { readonly memory: number; readonly lockWaitMs: number; readonly logger?: Logger },
): Promise<CompactResult | undefined> {
  const budget = planMemory(options.memory, 1).duckdb;
  const attempt = async (memory: DuckDbMemory) => {
    const db = await openWriter(path, {
      lockWaitMs: options.lockWaitMs,
      memory,
      compactAfter: Number.POSITIVE_INFINITY,
      logger: options.logger,
    });
    try {
      if ((await unwrittenErasures(db)) === 0) return undefined;
      return await compactFile(db, undefined, () => markErasuresRewritten(db, { now: new Date() }));
    } finally {
      await db.close();
    }
  };
  return onOutOfMemory(
    () => attempt(budget),
    () => attempt({ ...budget, memoryLimit: Math.max(budget.memoryLimit, RAW_LIMIT_BYTES), threads: 1 }),
  );
}
