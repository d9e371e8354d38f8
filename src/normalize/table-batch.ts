/**
 * Rows for one table, gathered column by column: the shape DuckDB's appender takes in 2,048-row data
 * chunks (src/store/append-batch.ts writes them). Pure JS: nothing here talks to a database, and
 * every value is a plain one (Cell), so a batch would survive a structured clone between threads
 * (the normalize thread measured in BENCHMARKS.md, issue 15, lost on memory); the store builds
 * DuckDB's values from them at append time.
 */

/**
 * One value of a row: SQL NULL is null; an instant (TIMESTAMPTZ) is a bigint of microseconds since
 * the epoch (instant.ts); a VARCHAR[] is an array of strings.
 */
export type Cell = string | number | boolean | bigint | null | readonly string[];

/** A batch's rows as plain data, to cross to another thread (structured clone). */
export interface TableWire {
  readonly columns: Readonly<Record<string, readonly Cell[]>>;
  readonly rows: number;
}

export class TableBatch<const C extends readonly string[]> {
  readonly columns: { readonly [K in C[number]]: Cell[] };
  private count = 0;

  constructor(
    readonly table: string,
    /** Column names in the table's order (checked against the table by store/append-batch.ts). */
    readonly names: C,
    /** 'temp' for a connection's temp tables; the database's own tables by default. */
    readonly catalog?: string,
  ) {
    const columns: Record<string, Cell[]> = {};
    for (const name of names) columns[name] = [];
    this.columns = columns as { readonly [K in C[number]]: Cell[] };
  }

  get rowCount(): number {
    return this.count;
  }

  /** The columns in the table's order (what the store's appender writes). */
  orderedColumns(): readonly (readonly Cell[])[] {
    return (this.names as readonly C[number][]).map((name) => this.columns[name]);
  }

  /** The rows as plain data (the columns themselves, not copies): for a structured clone. */
  toWire(): TableWire {
    return { columns: this.columns, rows: this.count };
  }

  /** Takes over the rows of `wire` (this batch's columns, from toWire in another thread); this batch must be empty. */
  restore(wire: TableWire): this {
    const columns = this.columns as Record<string, Cell[]>;
    // The arrays a structured clone made are this thread's own: taken over, not copied.
    for (const name of this.names as readonly string[]) columns[name] = (wire.columns[name] ?? []) as Cell[];
    this.count = wire.rows;
    return this;
  }

  /** Adds one row; every column must be given (null for SQL NULL). */
  push(row: { readonly [K in C[number]]: Cell }): void {
    for (const name of this.names as readonly C[number][]) this.columns[name].push(row[name]);
    this.count += 1;
  }

  /**
   * Adds the rows of `other` (same columns) whose index `keep` accepts (all without it), passing the
   * values of the columns in `map` through it.
   */
  addAll(
    other: TableBatch<C>,
    map?: { readonly columns: readonly C[number][]; readonly value: (value: Cell) => Cell },
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
