/**
 * Rows for one table, gathered column by column: the shape DuckDB's appender takes in 2,048-row data
 * chunks (src/store/append-batch.ts writes them). Pure JS: nothing here talks to a database.
 */
import type { DuckDBValue } from '@duckdb/node-api';

export class TableBatch<const C extends readonly string[]> {
  readonly columns: { readonly [K in C[number]]: DuckDBValue[] };
  private count = 0;

  constructor(
    readonly table: string,
    /** Column names in the table's order (checked against the table by store/append-batch.ts). */
    readonly names: C,
    /** 'temp' for a connection's temp tables; the database's own tables by default. */
    readonly catalog?: string,
  ) {
    const columns: Record<string, DuckDBValue[]> = {};
    for (const name of names) columns[name] = [];
    this.columns = columns as { readonly [K in C[number]]: DuckDBValue[] };
  }

  get rowCount(): number {
    return this.count;
  }

  /** Adds one row; every column must be given (null for SQL NULL). */
  push(row: { readonly [K in C[number]]: DuckDBValue }): void {
    for (const name of this.names as readonly C[number][]) this.columns[name].push(row[name]);
    this.count += 1;
  }

  /** For callers that push into `columns` directly (the word loop): records how many rows they added. */
  addCount(rows: number): void {
    this.count += rows;
  }

  /**
   * Adds the rows of `other` (same columns) whose index `keep` accepts (all without it), passing the
   * values of the columns in `map` through it.
   */
  addAll(
    other: TableBatch<C>,
    map?: { readonly columns: readonly C[number][]; readonly value: (value: DuckDBValue) => DuckDBValue },
    keep?: (row: number) => boolean,
  ): void {
    const rows = keep ? rowsKept(other.rowCount, keep) : undefined;
    for (const name of this.names as readonly C[number][]) {
      const into = this.columns[name];
      const from = other.columns[name];
      const mapped = map?.columns.includes(name) ? map.value : undefined;
      if (rows) {
        for (const i of rows) into.push(mapped ? mapped(from[i] ?? null) : (from[i] ?? null));
      } else {
        for (let i = 0; i < from.length; i++) into.push(mapped ? mapped(from[i] ?? null) : (from[i] ?? null));
      }
    }
    this.count += rows ? rows.length : other.rowCount;
  }
}

function rowsKept(count: number, keep: (row: number) => boolean): number[] {
  const rows: number[] = [];
  for (let i = 0; i < count; i++) if (keep(i)) rows.push(i);
  return rows;
}
