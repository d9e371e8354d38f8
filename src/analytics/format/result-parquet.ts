/**
 * A query's result as a Parquet file, for `query --out FILE.parquet`: the rows are appended, with
 * the result's own column types, to a table of a private in-memory DuckDB, which writes the file.
 * The reading side (a sandboxed file, or the writer serving a socket) never writes where a reader
 * says: the private instance reads nothing but the values it is handed.
 *
 * Every value is kept exact, or the file is refused with one line:
 *   - HUGEINT and UHUGEINT (DuckDB's Parquet writer would turn them into doubles) are written as
 *     DECIMAL(38,0), at any depth of lists, structs and maps; a value of 39 digits does not fit;
 *   - INTERVAL is Parquet's INTERVAL: months, days and milliseconds, each 0 or more, so a negative
 *     interval or one with microseconds does not fit.
 * Every other type is written as DuckDB writes it.
 */
import type { DuckDBConnection, DuckDBResultReader, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { ConfigError } from '../../errors.js';
import { duckdb } from '../../store/index.js';
import { sqlIdentifier, sqlPathLiteral } from '../../util/sql-literal.js';
import { isoDuration } from './duckdb-result-table.js';

/** Writes `reader`'s rows to `file` (absolute); returns the row count. */
export async function resultToParquet(reader: DuckDBResultReader, file: string): Promise<number> {
  const names = copyColumnNames(reader.columnNames());
  const types = reader.columnTypes();
  const checked = types.flatMap((type, i) => (needsCheck(type) ? [i] : []));
  return withPrivateDuckDB(async (connection) => {
    // Types as DuckDB spells them (DECIMAL(38,2), ...), those Parquet has no type for as the exact
    // type they are written in (HUGEINT as DECIMAL(38,0)), into which the appender casts the values.
    const columns = names.map((name, i) => {
      const type = types[i];
      const cast = type === undefined ? 'VARCHAR' : holds(type, isHuge) ? castText(type) : type.toString();
      return `${sqlIdentifier(name)} ${cast}`;
    });
    await connection.run(`CREATE TABLE result (${columns.join(', ')})`);
    const appender = await connection.createAppender('result');
    try {
      for (const row of reader.getRows()) {
        for (const i of checked) {
          const [value, type] = [row[i] ?? null, types[i]];
          const why = type === undefined ? undefined : unwritable(value, type);
          if (why !== undefined) {
            throw new ConfigError('--out', `column "${names[i]}" holds ${why}, so it cannot be written`, {
              hint: `write it as text (CAST(${sqlIdentifier(names[i] ?? '')} AS VARCHAR)), or use --format csv or json`,
            });
          }
        }
        for (const [i, value] of row.entries()) appender.appendValue(value, types[i]);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    await connection.run(`COPY result TO ${sqlPathLiteral(file, '--out')} (FORMAT parquet)`);
    return reader.currentRowCount;
  });
}

/**
 * Column names made unique as DuckDB's COPY makes them (QueryResult::DeduplicateColumns): a name
 * already taken, in any case, gets `_N`, N its repetition, so `SELECT *` of a join writes `id` and
 * `id_1`, as DuckDB would, where a table of both names could not be made.
 */
function copyColumnNames(names: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const low = name.toLowerCase();
    let repetition = seen.get(low);
    if (repetition === undefined) {
      seen.set(low, 1);
      return name;
    }
    let unique = `${name}_${repetition}`;
    while (seen.has(unique.toLowerCase())) {
      repetition += 1;
      unique = `${name}_${repetition}`;
    }
    seen.set(low, repetition);
    seen.set(unique.toLowerCase(), 1);
    return unique;
  });
}

/** `fn` on a connection of a private in-memory DuckDB that loads no extension; both close after. */
export async function withPrivateDuckDB<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await duckdb().DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The type a HUGEINT is written as: the widest decimal Parquet readers take. */
const HUGE_AS = 'DECIMAL(38,0)';
const HUGE_LIMIT = 10n ** 38n;
const isHuge = (id: number) => {
  const { HUGEINT, UHUGEINT } = duckdb().DuckDBTypeId;
  return id === HUGEINT || id === UHUGEINT;
};

/** Whether values of `type` need a look before writing (they may not fit, see the top). */
function needsCheck(type: DuckDBType): boolean {
  return holds(type, (id) => isHuge(id) || id === duckdb().DuckDBTypeId.INTERVAL);
}

/** Why `value` (of `type`) cannot be written to Parquet, in words; undefined when it can. */
function unwritable(value: DuckDBValue, type: DuckDBType): string | undefined {
  if (value === null) return undefined;
  const duck = duckdb();
  if (isHuge(type.typeId) && typeof value === 'bigint') {
    if (value < HUGE_LIMIT && value > -HUGE_LIMIT) return undefined;
    return `the ${type.typeId === duck.DuckDBTypeId.HUGEINT ? 'HUGEINT' : 'UHUGEINT'} ${value}, past the 38 digits of the ${HUGE_AS} a Parquet file keeps it in`;
  }
  if (value instanceof duck.DuckDBIntervalValue) {
    if (value.months < 0 || value.days < 0 || value.micros < 0n)
      return `the negative interval ${isoDuration(value)}, and a Parquet INTERVAL holds months, days and milliseconds of 0 or more`;
    if (value.micros % 1000n !== 0n)
      return `the interval ${isoDuration(value)}, finer than the milliseconds a Parquet INTERVAL holds`;
    return undefined;
  }
  for (const [item, itemType] of children(value, type)) {
    const found = unwritable(item, itemType);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A nested value's items, each with its type. */
function children(value: DuckDBValue, type: DuckDBType): [DuckDBValue, DuckDBType][] {
  const duck = duckdb();
  const { DuckDBTypeId } = duck;
  if (
    (value instanceof duck.DuckDBListValue || value instanceof duck.DuckDBArrayValue) &&
    'valueType' in type
  )
    return value.items.map((item) => [item, type.valueType]);
  if (value instanceof duck.DuckDBStructValue && type.typeId === DuckDBTypeId.STRUCT)
    return Object.entries(value.entries).map(([name, item]) => [item, type.typeForEntry(name)]);
  if (value instanceof duck.DuckDBMapValue && type.typeId === DuckDBTypeId.MAP)
    return value.entries.flatMap((entry): [DuckDBValue, DuckDBType][] => [
      [entry.key, type.keyType],
      [entry.value, type.valueType],
    ]);
  if (value instanceof duck.DuckDBUnionValue && type.typeId === DuckDBTypeId.UNION)
    return [[value.value, type.memberTypeForTag(value.tag)]];
  return [];
}

function holds(type: DuckDBType, leaf: (id: number) => boolean): boolean {
  return leaf(type.typeId) || inner(type).some((t) => holds(t, leaf));
}

function inner(type: DuckDBType): readonly DuckDBType[] {
  const { DuckDBTypeId } = duckdb();
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return [type.valueType];
    case DuckDBTypeId.STRUCT:
      return type.entryTypes;
    case DuckDBTypeId.MAP:
      return [type.keyType, type.valueType];
    case DuckDBTypeId.UNION:
      return type.memberTypes;
    default:
      return [];
  }
}

/** `type` as SQL with every HUGEINT and UHUGEINT in it spelled DECIMAL(38,0). */
function castText(type: DuckDBType): string {
  const fields = (names: readonly string[], types: readonly DuckDBType[]) =>
    names.map((name, i) => `${sqlIdentifier(name)} ${types[i] ? castText(types[i]) : 'VARCHAR'}`).join(', ');
  const { DuckDBTypeId } = duckdb();
  switch (type.typeId) {
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return HUGE_AS;
    case DuckDBTypeId.LIST:
      return `${castText(type.valueType)}[]`;
    case DuckDBTypeId.ARRAY:
      return `${castText(type.valueType)}[${type.length}]`;
    case DuckDBTypeId.STRUCT:
      return `STRUCT(${fields(type.entryNames, type.entryTypes)})`;
    case DuckDBTypeId.MAP:
      return `MAP(${castText(type.keyType)}, ${castText(type.valueType)})`;
    case DuckDBTypeId.UNION:
      return `UNION(${fields(type.memberTags, type.memberTypes)})`;
    default:
      return type.toString();
  }
}
