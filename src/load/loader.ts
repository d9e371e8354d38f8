/**
 * Loads normalized records (src/normalize/page-records.ts) into DuckDB, idempotently, inside the
 * caller's transaction: each record's text is appended to the staging table as received, and the
 * SQL of sql/load/ does the rest in DuckDB: it compares each record's hash with the stored job's
 * (an identical record writes nothing), deletes a changed job's row and children, parses the new
 * and changed records and maps them into jobs, utterances, words and module_results. Records that
 * failed validation go to the quarantine; the rest of the batch loads.
 */
import { DuckDBTimestampTZValue, LIST, VARCHAR } from '@duckdb/node-api';
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

interface Classified {
  readonly inserted: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly restored: number;
  readonly restored_unchanged: number;
}

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
    await this.stage(jobs, syncedAt);
    const [counts] = await this.db.all<Classified>(loadSql('classify'));
    if (counts === undefined) throw new Error('classify.sql returned no counts');
    result.inserted = Number(counts.inserted);
    result.updated = Number(counts.updated);
    result.unchanged = Number(counts.unchanged);
    result.restored = Number(counts.restored);
    if (Number(counts.restored_unchanged) > 0) await this.db.run(loadSql('restore'));
    if (result.updated > 0) await this.db.run(loadSql('replace'));
    if (result.inserted + result.updated > 0) {
      const [rows] = await this.db.all<{ utterances: number; words: number }>(loadSql('insert'));
      result.utterances = Number(rows?.utterances ?? 0);
      result.words = Number(rows?.words ?? 0);
    } else await this.db.run(loadSql('finish'));
    if (await this.hasUnresolved()) {
      await resolveQuarantinedJobs(this.db, {
        ids: jobs.map((job) => job.id),
        resolved_at: syncedAt,
      });
    }
    return result;
  }

  /** Appends the records to the staging table (sql/load/stage-create.sql), in the open transaction. */
  private async stage(jobs: readonly JobText[], syncedAt: Date): Promise<void> {
    const appender = await this.db.createAppender('_tsync_items', null, 'temp');
    const stamp = new DuckDBTimestampTZValue(BigInt(syncedAt.getTime()) * 1000n);
    // Each record to the half of the batch with fewer bytes so far (insert.sql parses the halves apart).
    const bytes = [0, 0];
    let failure: { error: unknown } | undefined;
    try {
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

  /** Asked once, then known: this loader is the file's only writer while it lives. */
  private async hasUnresolved(): Promise<boolean> {
    if (this.unresolved === undefined) {
      this.unresolved = (await countUnresolvedQuarantine(this.db)) > 0;
    }
    return this.unresolved;
  }
}
