/**
 * The records a loader has classified as new or changed but not parsed yet, staged as received on
 * one of the writer's two staging connections, outside the writer's transaction. `parse` starts a
 * lot's parse and returns at once, and the next records go to the other connection, so that DuckDB
 * parses one lot while JavaScript stages the next. A parsed lot's rows are appended in the writer's
 * transaction before a record of theirs is compared again (`holds`), and at the latest by `flush`.
 * At most one lot is parsing or parsed beside the one being staged.
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

/** Child rows appended. */
export interface RowCounts {
  utterances: number;
  words: number;
}

/** The tables the parsed rows go to, in order. */
const TABLES: readonly ParsedTable[] = ['jobs', 'job_records', 'utterances', 'words', 'module_results'];

/** The lot, staged or being parsed, on the Database's staging connection `index` (a reopen makes it anew). */
interface Lane {
  readonly index: number;
  /** Ids staged or being parsed: one staged twice before its rows are appended would be inserted twice. */
  readonly ids: Set<string>;
  /** JSON bytes staged in each half of the lot (parse.sql parses the halves apart). */
  readonly halves: [number, number];
  /** Whether a record of the lot was compared with the stored jobs. */
  compared: boolean;
  /** The lot's parse, once started: its child rows, the parsed rows kept on its connection. */
  parsing: Promise<RowCounts> | undefined;
  settled: boolean;
}

const NO_ROWS: RowCounts = { utterances: 0, words: 0 };

/**
 * A lot of new records (none compared with stored jobs, as in a back-fill) averaging under
 * SMALL_RECORD_BYTES holds SMALL_LOT_FACTOR times `parseBytes`, as a parse costs a fixed part a
 * statement; any other lot stays at `parseBytes`, what DuckDB's work memory is planned for.
 */
const SMALL_RECORD_BYTES = 16 * 1024;
const SMALL_LOT_FACTOR = 2;

export class ParseBatch {
  private readonly lanes: readonly Lane[];
  /** The lane that takes staged records; the other one may be parsing. */
  private filling = 0;

  constructor(private readonly db: Database) {
    this.lanes = [0, 1].map((index) => ({
      index,
      ids: new Set<string>(),
      halves: [0, 0],
      compared: false,
      parsing: undefined,
      settled: false,
    }));
  }

  /** Whether the filling lot is to be parsed: it holds `parseBytes` of JSON (see SMALL_LOT_FACTOR). */
  full(parseBytes: number): boolean {
    const lane = this.lane(this.filling);
    const bytes = lane.halves[0] + lane.halves[1];
    const small = !lane.compared && bytes < SMALL_RECORD_BYTES * lane.ids.size;
    return bytes >= (small ? SMALL_LOT_FACTOR : 1) * parseBytes;
  }

  /** Whether a record of this id waits for its rows to be appended. */
  holds(id: string): boolean {
    return this.lanes.some((lane) => lane.ids.has(id));
  }

  /** Ids of the records staged or being parsed, whose rows are not appended yet. */
  *stagedIds(): Iterable<string> {
    for (const lane of this.lanes) yield* lane.ids;
  }

  /** Appends the records' texts to the filling lot; returns the child rows of a lot parsed meanwhile. */
  async add(jobs: readonly JobText[], syncedAt: Date, compared: boolean): Promise<RowCounts> {
    const other = this.lane(1 - this.filling);
    const appended = other.settled ? await this.appendRows(other) : { ...NO_ROWS };
    const lane = this.lane(this.filling);
    lane.compared ||= compared;
    const appender = await this.connection(lane).createAppender('_tsync_items', null, 'temp');
    const { LIST, timestampTZValue, VARCHAR } = duckdb();
    const names = LIST(VARCHAR);
    const stamp = timestampTZValue(BigInt(syncedAt.getTime()) * 1000n);
    closing(appender, () => {
      for (const job of jobs) {
        // Each record to the half with fewer bytes so far.
        const part = lane.halves[0] <= lane.halves[1] ? 0 : 1;
        lane.halves[part] += job.raw.length;
        lane.ids.add(job.id);
        appender.appendVarchar(job.id);
        appender.appendVarchar(job.hash);
        appender.appendVarchar(job.raw);
        if (job.doc === undefined) appender.appendNull();
        else appender.appendVarchar(job.doc);
        appender.appendList([...job.modules], names);
        appender.appendInteger(part);
        appender.appendTimestampTZ(stamp);
        appender.endRow();
      }
    });
    return appended;
  }

  /**
   * Starts parsing the filling lot on its connection and turns to the other one, whose rows are
   * appended first (waiting for its parse). Returns the child rows appended.
   */
  async parse(): Promise<RowCounts> {
    const lane = this.lane(this.filling);
    if (lane.ids.size === 0) return { ...NO_ROWS };
    const other = this.lane(1 - this.filling);
    const appended = await this.appendRows(other);
    lane.settled = false;
    lane.parsing = parseStaged(this.connection(lane));
    lane.parsing.then(
      () => (lane.settled = true),
      () => (lane.settled = true),
    );
    this.filling = other.index;
    return appended;
  }

  /** Parses what is staged and appends every lot's rows in the open transaction, the older lot first. */
  async flush(): Promise<RowCounts> {
    const counts = await this.parse();
    const last = await this.appendRows(this.lane(1 - this.filling));
    return { utterances: counts.utterances + last.utterances, words: counts.words + last.words };
  }

  /** Drops what is staged or parsed and not appended (their transaction rolled back). */
  async discard(): Promise<void> {
    for (const lane of this.lanes) {
      const parsing = lane.parsing;
      lane.parsing = undefined;
      if (parsing) await parsing.catch(() => undefined);
      const held = lane.ids.size > 0;
      clear(lane);
      if (held) await resetParseStaging(this.connection(lane));
    }
  }

  /**
   * Waits for `lane`'s parse, if one was started, and appends its rows, each table's while its
   * connection shapes the next table's; the lane and its staging are emptied whatever happens.
   */
  private async appendRows(lane: Lane): Promise<RowCounts> {
    const parsing = lane.parsing;
    if (parsing === undefined) return { ...NO_ROWS };
    lane.parsing = undefined;
    lane.settled = false;
    const staging = this.connection(lane);
    try {
      const counts = await parsing;
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
      return counts;
    } finally {
      clear(lane);
      await resetParseStaging(staging);
    }
  }

  private lane(index: number): Lane {
    return this.lanes[index] as Lane;
  }

  private connection(lane: Lane): DuckDBConnection {
    return this.db.stagingConnections()[lane.index] as DuckDBConnection;
  }

  private async append(table: string, rows: DuckDBMaterializedResult): Promise<void> {
    const appender = await this.db.createAppender(table);
    closing(appender, () => {
      for (let c = 0; c < rows.chunkCount; c++) appender.appendDataChunk(rows.getChunk(c));
    });
  }
}

function clear(lane: Lane): void {
  lane.ids.clear();
  lane.compared = false;
  lane.halves[0] = 0;
  lane.halves[1] = 0;
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
