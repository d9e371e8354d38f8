/**
 * docs/schema.md against a freshly migrated file: every table, view and table macro the migrations
 * make is documented under a `### \`name\`` heading with a table of its columns (name, DuckDB type,
 * NOT NULL where the column has it), in order, and nothing else; every scalar macro is listed with
 * its parameters. A column added, renamed, retyped or dropped in sql/ without the page, or a page
 * row without a column, fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/store/database.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import { firstTable, readDoc, sections } from '../../helpers/docs-markdown.js';
import { migratedDb } from '../../helpers/migrated-db.js';

const PAGE = 'docs/schema.md';

interface Column {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
}

interface DocumentedObject {
  /** Parameters of a table macro, as its heading names them; undefined for tables and views. */
  readonly params?: readonly Param[];
  readonly columns: readonly Column[];
}

interface Param {
  readonly name: string;
  /** Given as `name := default` in the heading: passed by name, so left out of a sample call. */
  readonly hasDefault: boolean;
}

/** A column as the page's row reads: `name TYPE` or `name TYPE NOT NULL`. */
function columnLine(column: Column): string {
  return `${column.name} ${column.type}${column.notNull ? ' NOT NULL' : ''}`;
}

/** DuckDB spells it one way in DESCRIBE, the page the way people write it. */
function normalType(type: string): string {
  return type.trim().replaceAll('TIMESTAMP WITH TIME ZONE', 'TIMESTAMPTZ');
}

function parseParams(text: string): Param[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [name = '', value] = part.split(':=');
      return { name: name.trim(), hasDefault: value !== undefined };
    });
}

/** The objects of the page, by name: each `### \`name\`` or `### \`name(params)\`` with its column table. */
function documentedObjects(text: string): Map<string, DocumentedObject> {
  const objects = new Map<string, DocumentedObject>();
  for (const section of sections(text, 3)) {
    const heading = /^`([a-z_]+)(?:\(([^)]*)\))?`$/.exec(section.heading);
    if (!heading) throw new Error(`${PAGE}: heading "### ${section.heading}" does not name one object`);
    const [, name = '', params] = heading;
    const table = firstTable(section.lines);
    if (table?.header[0] !== 'column' || table.header[1] !== 'type')
      throw new Error(`${PAGE}: ${name} has no | column | type | ... | table`);
    const columns = table.rows.flatMap((cells): Column[] => {
      const [nameCell = '', typeCell = ''] = cells;
      const included = /^\*columns of `([a-z_]+)`\*$/.exec(nameCell);
      if (included) {
        const from = objects.get(included[1] ?? '');
        if (!from)
          throw new Error(`${PAGE}: ${name} includes ${included[1]}, which is not documented above it`);
        return [...from.columns];
      }
      const column = /^`([^`]+)`$/.exec(nameCell);
      if (!column) throw new Error(`${PAGE}: ${name}: "${nameCell}" is not a \`column\` name`);
      const notNull = / NOT NULL$/.test(typeCell);
      return [{ name: column[1] ?? '', type: normalType(typeCell.replace(/ NOT NULL$/, '')), notNull }];
    });
    objects.set(name, params === undefined ? { columns } : { params: parseParams(params), columns });
  }
  return objects;
}

/** `name(a, b)` of each row of the scalar macros table. */
function documentedScalarMacros(text: string): string[] {
  const section = sections(text, 2).find((s) => s.heading === 'Scalar macros');
  const table = section && firstTable(section.lines);
  if (table?.header[0] !== 'macro')
    throw new Error(`${PAGE}: no | macro | ... | table under ## Scalar macros`);
  return table.rows.map(([cell = '']) => cell.replace(/^`|`$/g, '').replaceAll(' ', '')).sort();
}

/** Sample values for a table macro's parameters in a DESCRIBE; any other parameter gets NULL. */
const SAMPLE_ARGUMENTS: Readonly<Record<string, string>> = {
  unit: "'day'",
  date_basis: "'created'",
  include_deleted: 'false',
  needle: "'x'",
};

let db: Database;
const text = readDoc(PAGE);
const documented = documentedObjects(text);

beforeAll(async () => {
  db = await openReadOnly(await migratedDb('schema.duckdb'));
});

afterAll(async () => {
  await db?.close();
});

async function tablesAndViews(): Promise<Map<string, Column[]>> {
  const rows = await db.all<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
  }>(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable
     FROM information_schema.columns AS c
     WHERE c.table_catalog = current_database() AND c.table_schema = 'main'
     ORDER BY c.table_name, c.ordinal_position`,
  );
  const objects = new Map<string, Column[]>();
  for (const row of rows) {
    const columns = objects.get(row.table_name) ?? [];
    columns.push({
      name: row.column_name,
      type: normalType(row.data_type),
      notNull: row.is_nullable === 'NO',
    });
    objects.set(row.table_name, columns);
  }
  return objects;
}

async function macros(type: 'macro' | 'table_macro'): Promise<Map<string, string[]>> {
  const rows = await db.all<{ function_name: string; parameters: string[] }>(
    `SELECT function_name, parameters FROM duckdb_functions()
     WHERE NOT internal AND schema_name = 'main' AND function_type = $type
     ORDER BY function_name`,
    { type },
  );
  return new Map(rows.map((row) => [row.function_name, [...row.parameters]]));
}

/** A table macro's columns, from DESCRIBE of a call with the heading's positional parameters. */
async function tableMacroColumns(name: string, params: readonly Param[]): Promise<Column[]> {
  const args = params.filter((p) => !p.hasDefault).map((p) => SAMPLE_ARGUMENTS[p.name] ?? 'NULL');
  const rows = await db.all<{ column_name: string; column_type: string }>(
    `DESCRIBE SELECT * FROM ${name}(${args.join(', ')})`,
  );
  return rows.map((row) => ({ name: row.column_name, type: normalType(row.column_type), notNull: false }));
}

describe('docs/schema.md', () => {
  it('documents every table, view and table macro of a migrated file, and nothing else', async () => {
    const inFile = [...(await tablesAndViews()).keys(), ...(await macros('table_macro')).keys()];
    expect([...documented.keys()].sort()).toEqual(inFile.sort());
  });

  it("documents each table's and view's columns in order, with their types and NOT NULL", async () => {
    const inFile = await tablesAndViews();
    expect(inFile.size).toBeGreaterThan(0);
    for (const [name, columns] of inFile) {
      const onPage = documented.get(name)?.columns ?? [];
      expect.soft(onPage.map(columnLine), `${name} in ${PAGE}`).toEqual(columns.map(columnLine));
    }
  });

  it("documents each table macro's parameters and the columns it yields", async () => {
    const inFile = await macros('table_macro');
    expect(inFile.size).toBeGreaterThan(0);
    for (const [name, params] of inFile) {
      const object = documented.get(name);
      if (!object?.params) continue;
      expect
        .soft(
          object.params.map((p) => p.name),
          `${name}'s parameters in ${PAGE}`,
        )
        .toEqual(params);
      const columns = await tableMacroColumns(name, object.params);
      expect.soft(object.columns.map(columnLine), `${name} in ${PAGE}`).toEqual(columns.map(columnLine));
    }
  });

  it('lists every scalar macro with its parameters', async () => {
    const inFile = [...(await macros('macro'))].map(([name, params]) => `${name}(${params.join(',')})`);
    expect(documentedScalarMacros(text)).toEqual(inFile.sort());
  });
});
