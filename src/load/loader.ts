/**
 * Loads normalized records (src/normalize/page-records.ts) into DuckDB, idempotently, inside the
 * caller's transaction, with the SQL of sql/load/: each record's id and hash are compared with the
 * stored job's (an identical record writes nothing) and a changed job's row and children deleted,
 * in the transaction; the new and changed records' texts are appended as received to a staging
 * table of the writer's staging connection and parsed into rows there, outside the transaction,
 * and those rows are appended to jobs, utterances, words and module_results in the transaction.
 * What a transaction stages DuckDB holds until it commits, even once dropped: staged there, each
 * batch's texts and parsed rows would stay in memory for every batch of a transaction of many.
 * Records that failed validation go to the quarantine; the rest of the batch loads.
 */
import {
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBTimestampTZValue,
  LIST,
  VARCHAR,
} from '@duckdb/node-api';
import { type Logger, silentLogger } from '../log.js';
import type { JobText, QuarantinedText } from '../normalize/page-records.js';
import type { Database } from './database.js';
import { recordQuarantined } from './quarantine-write.js';
import { loadSql } from './sql-files.js';
import { countUnresolvedQuarantine, resolveQuarantinedJobs } from './statements/quarantine.js';

export interface LoadBatch {
  /** Valid records, each id once. */
  readonly jobs: readonly JobText[];
  readonly quarantine: readonly QuarantinedText[];
}

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
}

const LIST_OF_NAMES = LIST(VARCHAR);

/** A record of the batch against the stored jobs (sql/load/classify.sql). */
interface Classified {
  readonly id: string;
  readonly stored: boolean;
  /** Stored with the same content hash. */
  readonly same: boolean;
  readonly was_deleted: boolean;
}

/** The tables the parsed rows go to, each with its query on the staging connection. */
const ROWS = [
  ['jobs', 'rows-jobs'],
  ['utterances', 'rows-utterances'],
  ['words', 'rows-words'],
  ['module_results', 'rows-module-results'],
] as const;

export class RecordLoader {
  private readonly logger: Logger;
  /** Whether the quarantine holds unresolved records; undefined until asked. */
  private unresolved: boolean | undefined;

  constructor(
    private readonly db: Database,
    options: { logger?: Logger } = {},
  ) {
    this.logger = options.logger ?? silentLogger;
  }

  /** Runs inside the caller's open transaction (db.transaction); outside one, in its own. */
  load(batch: LoadBatch, syncedAt: Date): Promise<LoadResult> {
    return this.db.transaction(() => this.loadInTransaction(batch, syncedAt));
  }

  private async loadInTransaction({ jobs, quarantine }: LoadBatch, syncedAt: Date): Promise<LoadResult> {
    const result: LoadResult = {
      inserted: 0,
      updated: 0,
      unchanged: 0,
      restored: 0,
      quarantined: quarantine.length,
      utterances: 0,
      words: 0,
    };
    if (quarantine.length > 0) {
      this.unresolved = true;
      await recordQuarantined(this.db, quarantine, syncedAt);
      this.logger.warn(
        { quarantined: quarantine.length, ids: quarantine.map((q) => q.id ?? null) },
        'records failed validation',
      );
    }
    if (jobs.length === 0) return result;
    await this.stageKeys(jobs, syncedAt);
    const classified = await this.db.all<Classified>(loadSql('classify'));
    const todo = new Set<string>();
    let restoredUnchanged = 0;
    for (const row of classified) {
      if (!row.stored) result.inserted += 1;
      else if (row.same) result.unchanged += 1;
      else result.updated += 1;
      if (row.was_deleted) {
        result.restored += 1;
        if (row.same) restoredUnchanged += 1;
      }
      if (!row.stored || !row.same) todo.add(row.id);
    }
    if (restoredUnchanged > 0) await this.db.run(loadSql('restore'));
    if (result.updated > 0) await this.db.run(loadSql('replace'));
    await this.db.run(loadSql('finish'));
    if (todo.size > 0) {
      const rows = await this.insert(
        jobs.filter((job) => todo.has(job.id)),
        syncedAt,
      );
      result.utterances = rows.utterances;
      result.words = rows.words;
    }
    if (await this.hasUnresolved()) {
      await resolveQuarantinedJobs(this.db, {
        ids: jobs.map((job) => job.id),
        resolved_at: syncedAt,
      });
    }
    return result;
  }

  /** Appends the batch's ids and hashes to the writer's keys table (sql/load/stage-create.sql). */
  private async stageKeys(jobs: readonly JobText[], syncedAt: Date): Promise<void> {
    const stamp = new DuckDBTimestampTZValue(BigInt(syncedAt.getTime()) * 1000n);
    const appender = await this.db.createAppender('_tsync_keys', null, 'temp');
    closing(appender, () => {
      for (const job of jobs) {
        appender.appendVarchar(job.id);
        appender.appendVarchar(job.hash);
        appender.appendTimestampTZ(stamp);
        appender.endRow();
      }
    });
  }

  /**
   * Parses `jobs` on the staging connection (sql/load/parse.sql) and appends their rows to the
   * tables in the open transaction; the staging is emptied whatever happens.
   */
  private async insert(
    jobs: readonly JobText[],
    syncedAt: Date,
  ): Promise<{ utterances: number; words: number }> {
    const staging = this.db.stagingConnection();
    try {
      await this.stage(staging, jobs, syncedAt);
      const [counts] = (await staging.runAndReadAll(loadSql('parse'))).getRowObjectsJS();
      for (const [table, query] of ROWS) {
        const rows = await staging.run(loadSql(query));
        const appender = await this.db.createAppender(table, null, null);
        closing(appender, () => {
          for (let c = 0; c < rows.chunkCount; c++) appender.appendDataChunk(rows.getChunk(c));
        });
      }
      return { utterances: Number(counts?.['utterances'] ?? 0), words: Number(counts?.['words'] ?? 0) };
    } finally {
      await staging.run(loadSql('parse-reset'));
    }
  }

  /** Appends the records' texts to the staging table (sql/load/parse-reset.sql), outside the writer's transaction. */
  private async stage(staging: DuckDBConnection, jobs: readonly JobText[], syncedAt: Date): Promise<void> {
    const appender = await staging.createAppender('_tsync_items', null, 'temp');
    const stamp = new DuckDBTimestampTZValue(BigInt(syncedAt.getTime()) * 1000n);
    // Each record to the half of the batch with fewer bytes so far (parse.sql parses the halves apart).
    const bytes = [0, 0];
    closing(appender, () => {
      for (const job of jobs) {
        const part = (bytes[0] as number) <= (bytes[1] as number) ? 0 : 1;
        bytes[part] = (bytes[part] as number) + job.raw.length;
        appender.appendVarchar(job.id);
        appender.appendVarchar(job.hash);
        appender.appendVarchar(job.raw);
        if (job.doc === undefined) appender.appendNull();
        else appender.appendVarchar(job.doc);
        appender.appendList(
          job.modules.map((name) => name),
          LIST_OF_NAMES,
        );
        appender.appendInteger(part);
        appender.appendTimestampTZ(stamp);
        appender.endRow();
      }
    });
  }

  /** Asked once, then known: this loader is the file's only writer while it lives. */
  private async hasUnresolved(): Promise<boolean> {
    if (this.unresolved === undefined) {
      this.unresolved = (await countUnresolvedQuarantine(this.db)) > 0;
    }
    return this.unresolved;
  }
}

/** Runs `fill` on `appender`, flushes and closes it; the first error is the one thrown. */
function closing(appender: DuckDBAppender, fill: () => void): void {
  let failure: { error: unknown } | undefined;
  try {
    fill();
    appender.flushSync();
  } catch (error) {
    failure = { error };
  }
  try {
    appender.closeSync();
  } catch (error) {
    failure ??= { error };
  }
  if (failure) throw failure.error;
}
