/**
 * The records a loader has classified as new or changed but not parsed yet: their texts, appended
 * as received to `_tsync_items` of the writer's staging connection (sql/load/parse-reset.sql),
 * outside the writer's transaction. `flush` parses them there (parse.sql), shapes the rows of each
 * table (rows-*.sql) and appends those to the tables in the writer's open transaction. Parsing
 * costs a fixed part per statement, so the loader may gather several batches' records before one
 * flush (at most `parseBytes` of JSON); the caller flushes before its transaction commits.
 */
import type { DuckDBAppender, DuckDBConnection, DuckDBMaterializedResult } from '@duckdb/node-api';
import type { JobText } from '../normalize/index.js';
import {
  type Database,
  duckdb,
  type ParsedTable,
  parsedRows,
  parseStaged,
  resetParseStaging,
} from '../store/index.js';

/** Child rows a flush appended. */
export interface RowCounts {
  utterances: number;
  words: number;
}

/** The tables the parsed rows go to, in order. */
const TABLES: readonly ParsedTable[] = ['jobs', 'job_records', 'utterances', 'words', 'module_results'];

export class ParseBatch {
  /** Ids of the staged records: a record staged twice before a flush would be inserted twice. */
  private readonly ids = new Set<string>();
  /** JSON bytes staged in each half of the batch (parse.sql parses the halves apart). */
  private readonly halves = [0, 0];

  constructor(private readonly db: Database) {}

  /** JSON bytes staged, not parsed yet. */
  get bytes(): number {
    return (this.halves[0] as number) + (this.halves[1] as number);
  }

  /** Whether a record of this id waits to be parsed. */
  holds(id: string): boolean {
    return this.ids.has(id);
  }

  /** Ids of the records staged, not parsed yet. */
  stagedIds(): Iterable<string> {
    return this.ids;
  }

  /** Appends the records' texts to the staging table; nothing is parsed yet. */
  async add(jobs: readonly JobText[], syncedAt: Date): Promise<void> {
    const staging = this.db.stagingConnection();
    const appender = await staging.createAppender('_tsync_items', null, 'temp');
    const { LIST, timestampTZValue, VARCHAR } = duckdb();
    const names = LIST(VARCHAR);
    const stamp = timestampTZValue(BigInt(syncedAt.getTime()) * 1000n);
    closing(appender, () => {
      for (const job of jobs) {
        // Each record to the half with fewer bytes so far.
        const part = (this.halves[0] as number) <= (this.halves[1] as number) ? 0 : 1;
        this.halves[part] = (this.halves[part] as number) + job.raw.length;
        this.ids.add(job.id);
        appender.appendVarchar(job.id);
        appender.appendVarchar(job.hash);
        appender.appendVarchar(job.raw);
        if (job.doc === undefined) appender.appendNull();
        else appender.appendVarchar(job.doc);
        appender.appendList(
          job.modules.map((name) => name),
          names,
        );
        appender.appendInteger(part);
        appender.appendTimestampTZ(stamp);
        appender.endRow();
      }
    });
  }

  /**
   * Parses the staged records and appends their rows to the tables in the open transaction; the
   * staging is emptied whatever happens. Each table's rows are appended while the staging
   * connection shapes the next table's: the appender runs on this thread, the query on DuckDB's.
   */
  async flush(): Promise<RowCounts> {
    if (this.ids.size === 0) return { utterances: 0, words: 0 };
    const staging = this.db.stagingConnection();
    try {
      const counts = await parseStaged(staging);
      let pending = parsedRows(staging, TABLES[0] as ParsedTable);
      for (let i = 0; i < TABLES.length; i++) {
        const rows = await pending;
        const next = TABLES[i + 1];
        if (next) pending = parsedRows(staging, next);
        try {
          await this.append(TABLES[i] as ParsedTable, rows);
        } catch (error) {
          // The next query still runs on the staging connection: let it end before the reset.
          await pending.catch(() => undefined);
          throw error;
        }
      }
      return { utterances: counts.utterances, words: counts.words };
    } finally {
      await this.reset(staging);
    }
  }

  /** Drops the staged records unparsed (their transaction rolled back). */
  async discard(): Promise<void> {
    if (this.ids.size > 0) await this.reset(this.db.stagingConnection());
  }

  private async append(table: string, rows: DuckDBMaterializedResult): Promise<void> {
    const appender = await this.db.createAppender(table, null, null);
    closing(appender, () => {
      for (let c = 0; c < rows.chunkCount; c++) appender.appendDataChunk(rows.getChunk(c));
    });
  }

  private async reset(staging: DuckDBConnection): Promise<void> {
    this.ids.clear();
    this.halves[0] = 0;
    this.halves[1] = 0;
    await resetParseStaging(staging);
  }
}

/** Runs `fill` on `appender`, flushes and closes it; the first error is the one thrown. */
export function closing(appender: DuckDBAppender, fill: () => void): void {
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
