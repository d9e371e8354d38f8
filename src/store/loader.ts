/**
 * Loads pages of job records into DuckDB, idempotently: a record identical to what is stored (same
 * hash of its JSON text) writes nothing; a changed one replaces its job row and all its children
 * (set-based: ids into a temp table, one DELETE per table, then bulk append); a new one is
 * appended. Invalid records go to the quarantine and the rest of the batch loads.
 */
import { listValue } from '@duckdb/node-api';
import { type Logger, silentLogger } from '../log.js';
import type { JobRecord } from '../records/job-record.js';
import type { Database } from './database.js';
import { JobRows, type PreparedJob } from './job-rows.js';
import { type PreparedBatch, prepareRecords } from './prepare.js';
import { recordQuarantined } from './quarantine-write.js';
import { instantValue } from './values.js';

export interface LoadResult {
  /** New jobs. */
  inserted: number;
  /** Stored jobs whose record changed: row and children replaced. */
  updated: number;
  /** Stored jobs whose record is identical: nothing written. */
  unchanged: number;
  /** Jobs marked deleted (by a --full run) seen again; also counted as updated or unchanged. */
  restored: number;
  quarantined: number;
  /** Child rows written. */
  utterances: number;
  words: number;
  /** Ids of the valid records of the batch, each once. */
  seenIds: string[];
  jobs: { id: string; kind: string; status: string; createdAt: string }[];
}

export interface LoadOptions {
  /** The instant written to `synced_at`. */
  readonly syncedAt: Date;
  /**
   * Each record's JSON text as received, in the order of `records` (Page.texts): stored as `raw`
   * and hashed as it is. Without it (or when it does not line up) the records are stringified.
   */
  readonly texts?: readonly (string | undefined)[] | undefined;
  /** `records` already validated, hashed and mapped to rows (prepareBatch, in the engine's fetchers). */
  readonly prepared?: PreparedBatch | undefined;
}

interface StoredJob {
  readonly id: string;
  readonly content_hash: string;
  readonly deleted: boolean;
}

export class JobLoader {
  private readonly logger: Logger;
  private checked = false;
  /** Whether the quarantine holds unresolved records; undefined until asked. */
  private unresolved: boolean | undefined;

  constructor(
    private readonly db: Database,
    options: { logger?: Logger } = {},
  ) {
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * Validates each record, quarantines the bad ones and upserts the rest in bulk. Runs inside the
   * caller's open transaction (db.transaction), so the caller decides when pages commit; called
   * outside one, it runs in its own.
   */
  load(records: readonly unknown[], options: LoadOptions): Promise<LoadResult> {
    return this.db.transaction(() => this.loadInTransaction(records, options));
  }

  private async loadInTransaction(records: readonly unknown[], options: LoadOptions): Promise<LoadResult> {
    const { syncedAt, prepared } = options;
    const { valid, bad } = prepared ?? prepareRecords(records, options.texts);
    const result = emptyResult(
      [...valid.keys()],
      [...valid.values()].map((job) => job.record),
    );
    if (bad.length > 0) {
      this.unresolved = true;
      await recordQuarantined(this.db, bad, syncedAt);
      result.quarantined = bad.length;
      this.logger.warn(
        { quarantined: bad.length, ids: bad.map((b) => b.id ?? null) },
        'records failed validation',
      );
    }
    if (valid.size === 0) return result;
    const ids = [...valid.keys()];
    const stored = new Map<string, StoredJob>();
    for (const row of await this.db.all<StoredJob>(this.db.query('loader-existing'), {
      ids: listValue(ids),
    })) {
      stored.set(row.id, row);
    }
    const changed: PreparedJob[] = [];
    const restoredUnchanged: string[] = [];
    for (const job of valid.values()) {
      const before = stored.get(job.record.id);
      if (before?.deleted) result.restored += 1;
      if (before === undefined) result.inserted += 1;
      else if (before.content_hash !== job.hash) result.updated += 1;
      else {
        result.unchanged += 1;
        if (before.deleted) restoredUnchanged.push(job.record.id);
        continue;
      }
      changed.push(job);
    }
    if (restoredUnchanged.length > 0) {
      await this.db.run(this.db.query('loader-restore'), {
        ids: listValue(restoredUnchanged),
        synced_at: syncedAt,
      });
    }
    // Rows prepared ahead serve when every valid job is written (a backfill); else map the changed.
    const rows = prepared && changed.length === valid.size ? prepared.rows : undefined;
    await this.replace(
      changed,
      changed.filter((job) => stored.has(job.record.id)).map((job) => job.record.id),
      syncedAt,
      result,
      rows,
    );
    if (await this.hasUnresolved()) {
      await this.db.run(this.db.query('quarantine-resolve-jobs'), {
        ids: listValue(ids),
        resolved_at: syncedAt,
      });
    }
    return result;
  }

  /**
   * Whether the quarantine holds unresolved records, which loaded jobs would resolve: asked once,
   * then known (this loader is the file's only writer while it lives). Saves a statement per batch.
   */
  private async hasUnresolved(): Promise<boolean> {
    if (this.unresolved === undefined) {
      const [row] = await this.db.all<{ n: number }>(this.db.query('quarantine-unresolved-count'));
      this.unresolved = Number(row?.n ?? 0) > 0;
    }
    return this.unresolved;
  }

  private async replace(
    jobs: readonly PreparedJob[],
    storedIds: readonly string[],
    syncedAt: Date,
    result: LoadResult,
    prepared: JobRows | undefined,
  ) {
    if (jobs.length === 0) return;
    if (storedIds.length > 0) {
      await this.db.run(this.db.query('loader-replaced-create'), { ids: listValue(storedIds) });
      for (const table of ['jobs', 'utterances', 'words', 'modules']) {
        await this.db.run(this.db.query(`loader-replaced-delete-${table}`));
      }
    }
    const synced = instantValue(syncedAt.toISOString());
    let rows = prepared;
    if (rows) rows.stamp(synced);
    else {
      rows = new JobRows();
      for (const job of jobs) rows.add(job, synced);
    }
    const batches = [rows.jobs, rows.utterances, rows.modules];
    if (!this.checked) {
      for (const batch of batches) await batch.checkColumns(this.db.connection);
      this.checked = true;
    }
    for (const batch of batches) await batch.appendTo(this.db.connection);
    if (rows.words.rowCount > 0) {
      await this.db.run(this.db.query('loader-stage-create'));
      await rows.lists.appendTo(this.db.connection);
      await rows.dict.appendTo(this.db.connection);
      await rows.words.appendTo(this.db.connection);
      await this.db.run(this.db.query('loader-stage-insert-words'));
      await this.db.run(this.db.query('loader-stage-clear'));
    }
    result.utterances += rows.utterances.rowCount;
    result.words += rows.words.rowCount;
  }
}

function emptyResult(ids: string[], records: readonly JobRecord[]): LoadResult {
  return {
    inserted: 0,
    updated: 0,
    unchanged: 0,
    restored: 0,
    quarantined: 0,
    utterances: 0,
    words: 0,
    seenIds: ids,
    jobs: records.map((r) => ({ id: r.id, kind: r.kind, status: r.status, createdAt: r.created_at })),
  };
}
