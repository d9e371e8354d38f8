/**
 * Loads normalized batches (src/normalize/) into DuckDB, idempotently: a job identical to what is
 * stored (same hash of its JSON text) writes nothing; a changed one replaces its job row and all its
 * children (set-based: ids into a temp table, one DELETE per table, then bulk append); a new one is
 * appended. Only the rows of new and changed jobs are written, taken from the batch's rows by job
 * id: nothing is mapped here. Invalid records go to the quarantine and the rest of the batch loads.
 */
import { listValue } from '@duckdb/node-api';
import { type Logger, silentLogger } from '../log.js';
import { instantMicros } from '../normalize/instant.js';
import type { JobRows } from '../normalize/job-rows.js';
import type { RowBatch } from '../normalize/row-batch.js';
import { appendBatch, checkColumns } from './append-batch.js';
import type { Database } from './database.js';
import { recordQuarantined } from './quarantine-write.js';

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
   * Quarantines the batch's bad records and upserts its jobs in bulk. Runs inside the caller's open
   * transaction (db.transaction), so the caller decides when pages commit; called outside one, it
   * runs in its own.
   */
  load(batch: RowBatch, options: LoadOptions): Promise<LoadResult> {
    return this.db.transaction(() => this.loadInTransaction(batch, options));
  }

  private async loadInTransaction(batch: RowBatch, { syncedAt }: LoadOptions): Promise<LoadResult> {
    const { jobs, quarantine } = batch;
    const result = emptyResult(batch);
    if (quarantine.length > 0) {
      this.unresolved = true;
      await recordQuarantined(this.db, quarantine, syncedAt);
      result.quarantined = quarantine.length;
      this.logger.warn(
        { quarantined: quarantine.length, ids: quarantine.map((b) => b.id ?? null) },
        'records failed validation',
      );
    }
    if (jobs.size === 0) return result;
    const ids = [...jobs.keys()];
    const stored = new Map<string, StoredJob>();
    for (const row of await this.db.all<StoredJob>(this.db.query('loader-existing'), {
      ids: listValue(ids),
    })) {
      stored.set(row.id, row);
    }
    const changed = new Set<string>();
    const restoredUnchanged: string[] = [];
    for (const job of jobs.values()) {
      const before = stored.get(job.id);
      if (before?.deleted) result.restored += 1;
      if (before === undefined) result.inserted += 1;
      else if (before.content_hash !== job.hash) result.updated += 1;
      else {
        result.unchanged += 1;
        if (before.deleted) restoredUnchanged.push(job.id);
        continue;
      }
      changed.add(job.id);
    }
    if (restoredUnchanged.length > 0) {
      await this.db.run(this.db.query('loader-restore'), {
        ids: listValue(restoredUnchanged),
        synced_at: syncedAt,
      });
    }
    if (changed.size > 0) {
      // A backfill writes every job of the batch; otherwise only the new and changed jobs' rows.
      const rows = changed.size === jobs.size ? batch.rows : batch.rows.only(changed);
      const replaced = [...changed].filter((id) => stored.has(id));
      await this.replace(rows, replaced, syncedAt, result);
    }
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

  /** Deletes the stored jobs `storedIds` and their children, then appends `rows`. */
  private async replace(rows: JobRows, storedIds: readonly string[], syncedAt: Date, result: LoadResult) {
    if (storedIds.length > 0) {
      await this.db.run(this.db.query('loader-replaced-create'), { ids: listValue(storedIds) });
      for (const table of ['jobs', 'utterances', 'words', 'modules'] as const) {
        await this.db.run(this.db.query(`loader-replaced-delete-${table}`));
      }
    }
    rows.stamp(instantMicros(syncedAt.toISOString()));
    const connection = this.db.connection;
    if (!this.checked) {
      await checkColumns(connection, rows.jobs);
      await checkColumns(connection, rows.utterances);
      await checkColumns(connection, rows.modules);
      this.checked = true;
    }
    await appendBatch(connection, rows.jobs);
    await appendBatch(connection, rows.utterances);
    await appendBatch(connection, rows.modules);
    if (rows.words.rowCount > 0) {
      // The staging tables exist from the open (Database.open).
      await appendBatch(connection, rows.lists);
      await appendBatch(connection, rows.dict);
      await appendBatch(connection, rows.words);
      await this.db.run(this.db.query('loader-stage-move-words'));
    }
    result.utterances += rows.utterances.rowCount;
    result.words += rows.words.rowCount;
  }
}

function emptyResult(batch: RowBatch): LoadResult {
  const jobs = [...batch.jobs.values()];
  return {
    inserted: 0,
    updated: 0,
    unchanged: 0,
    restored: 0,
    quarantined: 0,
    utterances: 0,
    words: 0,
    seenIds: jobs.map((job) => job.id),
    jobs: jobs.map(({ id, kind, status, createdAt }) => ({ id, kind, status, createdAt })),
  };
}
