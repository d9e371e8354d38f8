/**
 * Loads normalized records (src/normalize/page-records.ts) into DuckDB, idempotently, inside the
 * caller's transaction: each record's id and hash are compared with the stored job's (an identical
 * record writes nothing, a changed job's row and children are replaced); the new and changed texts
 * are parsed on a staging connection outside the transaction (parse-batch.ts). Records that failed
 * validation go to the quarantine; the rest of the batch loads.
 */
import { type Logger, silentLogger } from '../log.js';
import type { JobText, PageRecords } from '../normalize/index.js';
import {
  type ClassifiedRecord,
  classifyAnywhere,
  classifyInWindow,
  countUnresolvedQuarantine,
  type Database,
  duckdb,
  finishBatch,
  recordQuarantined,
  refreshErased,
  replaceChanged,
  resolveQuarantinedJobs,
  restoreUnchanged,
} from '../store/index.js';
import { closing, ParseBatch, type RowCounts } from './parse-batch.js';
import { StoredIds } from './stored-ids.js';

/** What a load did: every count zero. */
export const NOTHING_LOADED = Object.freeze({
  /** New jobs. */
  inserted: 0,
  /** Stored jobs whose record changed: row and children replaced. */
  updated: 0,
  /** Stored jobs whose record is identical: nothing written. */
  unchanged: 0,
  /** Jobs marked deleted or expired (by a --full run) seen again; also counted as updated or unchanged. */
  restored: 0,
  quarantined: 0,
  /** Child rows written (by `stage`: of the records it parsed, maybe earlier calls'). */
  utterances: 0,
  words: 0,
  /** JSON bytes (UTF-16 units) of the new and changed records staged to be stored, `raw` each. */
  storedBytes: 0,
});

export type LoadResult = { -readonly [K in keyof typeof NOTHING_LOADED]: number };

export class RecordLoader {
  private readonly logger: Logger;
  /** New and changed records staged, not parsed yet. */
  private readonly parses: ParseBatch;
  /** The ids `jobs` may hold, read once the run has looked up LOOKUPS_BEFORE_FILTER batches' misses. */
  private known: StoredIds | undefined;
  /** Batches whose missed records were looked up in the whole table, before `known` was read. */
  private lookups = 0;
  private readonly lookupsBeforeFilter: number;
  /** Whether the quarantine holds unresolved records; asked once: this loader is the file's only writer. */
  private unresolved: boolean | undefined;

  constructor(
    private readonly db: Database,
    options: { logger?: Logger; lookupsBeforeFilter?: number } = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.lookupsBeforeFilter = options.lookupsBeforeFilter ?? LOOKUPS_BEFORE_FILTER;
    this.parses = new ParseBatch(db);
  }

  /** Loads the batch (each job once), its rows and every record staged before it, in a transaction. */
  load(records: PageRecords, syncedAt: Date): Promise<LoadResult> {
    return this.db.transaction(async () => {
      const result = await this.stageInTransaction(records, syncedAt, 0);
      addRows(result, await this.parses.flush());
      return result;
    });
  }

  /**
   * As `load`, except that the new and changed records stay staged until `parseBytes` of JSON are
   * (parsing costs a fixed part a statement); their rows are appended by a later call. The caller's
   * transaction must `flush` before it commits and `discard` if it rolls back.
   */
  stage(records: PageRecords, syncedAt: Date, parseBytes: number): Promise<LoadResult> {
    return this.db.transaction(() => this.stageInTransaction(records, syncedAt, parseBytes));
  }

  /** Parses what is staged and appends every staged or parsed record's rows in the open transaction. */
  flush(): Promise<RowCounts> {
    return this.parses.flush();
  }

  /** Drops what is staged or parsed and not appended: for a transaction that rolled back. */
  discard(): Promise<void> {
    return this.parses.discard();
  }

  private async stageInTransaction(
    { jobs, quarantine }: PageRecords,
    syncedAt: Date,
    parseBytes: number,
  ): Promise<LoadResult> {
    const result: LoadResult = { ...NOTHING_LOADED, quarantined: quarantine.length };
    if (quarantine.length > 0) {
      this.unresolved = true;
      await recordQuarantined(this.db, quarantine, syncedAt);
      this.logger.warn(
        { quarantined: quarantine.length, ids: quarantine.map((q) => q.id ?? null) },
        'records failed validation',
      );
    }
    if (jobs.length === 0) return result;
    // A record staged earlier must be in the tables before this batch is compared with them.
    if (jobs.some((job) => this.parses.holds(job.id))) addRows(result, await this.parses.flush());
    const todo = new Set<string>();
    if (this.ruledOut(jobs)) {
      // None of them is stored (a back-fill's batch, once the filter is read): nothing to compare,
      // restore or replace, so no keys staged on the writer's connection.
      for (const job of jobs) {
        todo.add(job.id);
        this.known?.add(job.id);
      }
      result.inserted = jobs.length;
      await this.stageTexts(jobs, todo, syncedAt, { parseBytes, compared: false }, result);
      return result;
    }
    await this.stageKeys(jobs, syncedAt);
    const classified = await this.classify(jobs);
    let restoredUnchanged = 0;
    const refreshed: string[] = [];
    for (const row of classified) {
      if (!row.stored) result.inserted += 1;
      else if (row.same) result.unchanged += 1;
      else result.updated += 1;
      if (row.was_deleted) {
        result.restored += 1;
        if (row.same) restoredUnchanged += 1;
      }
      if (row.stored && !row.same && row.erased) refreshed.push(row.id);
      else if (!row.stored || !row.same) todo.add(row.id);
      if (!row.stored) this.known?.add(row.id);
    }
    if (restoredUnchanged > 0) await restoreUnchanged(this.db);
    if (result.updated > refreshed.length) await replaceChanged(this.db);
    if (refreshed.length > 0) await this.refreshErased(jobs, refreshed);
    await finishBatch(this.db);
    await this.stageTexts(jobs, todo, syncedAt, { parseBytes, compared: true }, result);
    return result;
  }

  /** Erased jobs whose record changed: billing facts only (refresh-erased.sql); texts bound, never staged. */
  private async refreshErased(jobs: readonly JobText[], ids: readonly string[]): Promise<void> {
    const texts = jobs.filter((job) => ids.includes(job.id));
    const values = (take: (job: JobText) => string) => duckdb().listValue(texts.map(take));
    await refreshErased(this.db, { ids: values((j) => j.id), raws: values((j) => j.raw) });
  }

  /** Stages the texts of the records in `todo`; resolves the quarantined records the batch brings again. */
  private async stageTexts(
    jobs: readonly JobText[],
    todo: ReadonlySet<string>,
    syncedAt: Date,
    { parseBytes, compared }: { parseBytes: number; compared: boolean },
    result: LoadResult,
  ): Promise<void> {
    if (todo.size > 0) {
      const stored = jobs.filter((job) => todo.has(job.id));
      for (const job of stored) result.storedBytes += job.raw.length;
      addRows(result, await this.parses.add(stored, syncedAt, compared));
      if (this.parses.full(parseBytes)) addRows(result, await this.parses.parse());
    }
    this.unresolved ??= (await countUnresolvedQuarantine(this.db)) > 0;
    if (this.unresolved) {
      await resolveQuarantinedJobs(this.db, {
        ids: jobs.map((job) => job.id),
        resolved_at: syncedAt,
      });
    }
  }

  /** Whether the filter of stored ids (read, not full; no false negatives) rules out every record. */
  private ruledOut(jobs: readonly JobText[]): boolean {
    const known = this.known;
    return known !== undefined && !known.full && jobs.every((job) => !known.mayHold(job.id));
  }

  /**
   * The batch's records against the stored jobs: in the batch's created_at window, then those not found
   * there in the whole table: all of them for a run's first LOOKUPS_BEFORE_FILTER such batches, then
   * those the filter of stored ids does not rule out.
   */
  private async classify(jobs: readonly JobText[]): Promise<ClassifiedRecord[]> {
    const rows = await classifyInWindow(this.db, createdWindow(jobs));
    const missed = rows.filter((row) => !row.stored);
    if (missed.length === 0) return rows;
    if (this.known ? this.known.full : this.lookups >= this.lookupsBeforeFilter) {
      this.known = await StoredIds.read(this.db, this.parses.stagedIds());
    }
    const known = this.known;
    if (known === undefined) this.lookups += 1;
    const ids = missed.filter((row) => known?.mayHold(row.id) ?? true).map((row) => row.id);
    if (ids.length === 0) return rows;
    const found = new Map((await classifyAnywhere(this.db, { ids })).map((row) => [row.id, row]));
    return rows.map((row) => {
      const stored = found.get(row.id);
      return stored ? { ...stored, stored: true } : row;
    });
  }

  /** Appends the batch's ids and hashes to the writer's keys table (sql/load/stage-create.sql). */
  private async stageKeys(jobs: readonly JobText[], syncedAt: Date): Promise<void> {
    const stamp = duckdb().timestampTZValue(BigInt(syncedAt.getTime()) * 1000n);
    const appender = await this.db.createAppender('_tsync_keys', 'temp');
    closing(appender, () => {
      for (const job of jobs) {
        appender.appendVarchar(job.id);
        appender.appendVarchar(job.hash);
        appender.appendTimestampTZ(stamp);
        appender.endRow();
      }
    });
  }
}

function addRows(result: LoadResult, rows: RowCounts): void {
  result.utterances += rows.utterances;
  result.words += rows.words;
}

/**
 * Batches whose misses a run looks up in the whole table before it reads the filter of stored ids,
 * whose read costs as much as that many lookups.
 */
const LOOKUPS_BEFORE_FILTER = 6;

/**
 * The records' created_at span, as classify.sql bounds it: to the millisecond, widened by one at
 * each end for the microseconds DuckDB keeps and JavaScript does not.
 */
function createdWindow(jobs: readonly JobText[]): { from: Date; until: Date } {
  let from = Number.POSITIVE_INFINITY;
  let until = Number.NEGATIVE_INFINITY;
  for (const job of jobs) {
    const ms = Date.parse(job.createdAt);
    from = Math.min(from, ms);
    until = Math.max(until, ms);
  }
  // Validation admits only ISO instants; should one not parse, the window is the whole history.
  if (!Number.isFinite(from) || !Number.isFinite(until))
    return { from: new Date(-8.64e15), until: new Date(8.64e15) };
  return { from: new Date(from - 1), until: new Date(until + 1) };
}
