/**
 * Statements with bound values, prepared once per text on a connection and kept: a kept statement runs
 * in one trip to DuckDB's threads where the client's own path for bound values takes several.
 */
import type {
  DuckDBConnection,
  DuckDBMaterializedResult,
  DuckDBPreparedStatement,
  DuckDBValue,
  StatementType,
} from '@duckdb/node-api';
import { duckdb } from './duckdb.js';

/** Statements kept: queries and DML. */
let KEPT: ReadonlySet<StatementType> | undefined;
/** Texts kept at most per connection: above the named queries; a caller of ever new texts stops here. */
const MAX_KEPT = 128;

export class KeptStatements {
  /** undefined: a text not kept (several statements, or not a query or DML). */
  private readonly statements = new Map<string, DuckDBPreparedStatement | undefined>();
  /** Statements between bind and run: a concurrent caller of the same text runs it unkept. */
  private readonly binding = new Set<DuckDBPreparedStatement>();

  /** `sql` with `values` on `connection`, the same one at every call. */
  async run(
    connection: DuckDBConnection,
    sql: string,
    values: Record<string, DuckDBValue> | DuckDBValue[],
  ): Promise<DuckDBMaterializedResult> {
    const statement = await this.prepared(connection, sql);
    if (statement === undefined || this.binding.has(statement)) return connection.run(sql, values);
    this.binding.add(statement);
    try {
      statement.bind(values);
      return await statement.run();
    } finally {
      this.binding.delete(statement);
    }
  }

  /** Every kept statement destroyed: before its connection closes. */
  clear(): void {
    for (const statement of this.statements.values()) statement?.destroySync();
    this.statements.clear();
  }

  /**
   * `sql` prepared once; undefined when it holds several statements or is not a query or DML (a kept
   * `CREATE OR REPLACE TEMP TABLE ... AS` run again bound another temp table's columns: DuckDB 1.5.6).
   */
  private async prepared(
    connection: DuckDBConnection,
    sql: string,
  ): Promise<DuckDBPreparedStatement | undefined> {
    if (this.statements.has(sql)) return this.statements.get(sql);
    if (this.statements.size >= MAX_KEPT) return undefined;
    const extracted = await connection.extractStatements(sql);
    let statement = extracted.count === 1 ? await extracted.prepare(0) : undefined;
    const { StatementType: type } = duckdb();
    KEPT ??= new Set([type.SELECT, type.INSERT, type.UPDATE, type.DELETE]);
    if (statement !== undefined && !KEPT.has(statement.statementType)) {
      statement.destroySync();
      statement = undefined;
    }
    this.statements.set(sql, statement);
    return statement;
  }
}
