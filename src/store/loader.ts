/**
 * Loads pages of job records into DuckDB, idempotently: a record identical to what is stored (same
 * hash of its JSON text) writes nothing; a changed one replaces its job row and all its children
 * (set-based: ids into a temp table, one DELETE per table, then bulk append); a new one is
 * appended. Invalid records go to the quarantine and the rest of the batch loads.
 */
import { listValue } from '@duckdb/node-api';
import { type Logger, silentLogger } from '../log.js';
import type { JobRecord } from '../records/job-record.js';
import { validateJobRecord } from '../records/validate.js';
import { contentHash } from './content-hash.js';
import type { Database } from './database.js';
import { JobRows, type PreparedJob } from './job-rows.js';
import { type QuarantineItem, recordQuarantined } from './quarantine-write.js';
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

interface StoredJob {
  readonly id: string;
  readonly content_hash: string;
  readonly deleted: boolean;
}

export class JobLoader {
  private readonly logger: Logger;
  private checked = false;

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
  load(records: readonly unknown[], options: { syncedAt: Date }): Promise<LoadResult> {
    return this.db.transaction(() => this.loadInTransaction(records, options.syncedAt));
  }

  private async loadInTransaction(records: readonly unknown[], syncedAt: Date): Promise<LoadResult> {
    const { valid, bad } = prepare(records);
    const result = emptyResult(
      [...valid.keys()],
      [...valid.values()].map((job) => job.record),
    );
    if (bad.length > 0) {
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
    await this.replace(
      changed,
      changed.filter((job) => stored.has(job.record.id)).map((job) => job.record.id),
      syncedAt,
      result,
    );
    await this.db.run(this.db.query('quarantine-resolve-jobs'), {
      ids: listValue(ids),
      resolved_at: syncedAt,
    });
    return result;
  }

  private async replace(
    jobs: readonly PreparedJob[],
    storedIds: readonly string[],
    syncedAt: Date,
    result: LoadResult,
  ) {
    if (jobs.length === 0) return;
    if (storedIds.length > 0) {
      await this.db.run(this.db.query('loader-replaced-create'), { ids: listValue(storedIds) });
      for (const table of ['jobs', 'utterances', 'words', 'modules']) {
        await this.db.run(this.db.query(`loader-replaced-delete-${table}`));
      }
    }
    const rows = new JobRows();
    const synced = instantValue(syncedAt.toISOString());
    for (const job of jobs) rows.add(job, synced);
    const batches = [rows.jobs, rows.utterances, rows.words, rows.modules];
    if (!this.checked) {
      for (const batch of batches) await batch.checkColumns(this.db.connection);
      this.checked = true;
    }
    for (const batch of batches) await batch.appendTo(this.db.connection);
    result.utterances += rows.utterances.rowCount;
    result.words += rows.words.rowCount;
  }
}

/** Validates and hashes; the same id twice in a batch keeps the last record (the newest seen). */
function prepare(records: readonly unknown[]): { valid: Map<string, PreparedJob>; bad: QuarantineItem[] } {
  const valid = new Map<string, PreparedJob>();
  const bad: QuarantineItem[] = [];
  for (const raw of records) {
    const checked = validateJobRecord(raw);
    const text = JSON.stringify(raw) ?? 'null';
    if (!checked.ok) {
      bad.push({ raw: text, errors: checked.errors, id: checked.id, kind: checked.kind });
      continue;
    }
    valid.delete(checked.record.id);
    valid.set(checked.record.id, { record: checked.record, raw: text, hash: contentHash(text) });
  }
  return { valid, bad };
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
