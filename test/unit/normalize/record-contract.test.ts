/**
 * The job record's contract is the zod schema (src/normalize/records/); what else states it is
 * checked against it here:
 * - every place in sql/ and docs/ that lists the feature modules lists exactly FEATURE_MODULES
 *   (src/normalize/records/shapes.ts, itself derived from the result schemas); a failure names
 *   the file, the place in it, and the missing or extra module;
 * - every typed path of the `json_transform` structures of sql/ (the macros of
 *   sql/load/parse-create.sql and a few inline ones) exists in the schema with a compatible type
 *   (VARCHAR a string or enum, DOUBLE a number, INTEGER a 32-bit integer, TIMESTAMPTZ a datetime
 *   string, JSON anything, a list an array, a struct or MAP an object);
 * - the rows the load's queries (sql/load/rows-*.sql) make have the column types of the tables the
 *   migrations make (DESCRIBE of each, on a migrated file): the structures' types reach the DDL.
 * Each checker is also run on a deliberately drifted text, so that it is known to be able to fail.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jobRecordSchema } from '../../../src/normalize/records/job-record.js';
import {
  errorObjectSchema,
  FEATURE_MODULES,
  liveResultSchema,
  preRecordedResultSchema,
  RESULT_COLUMNS,
  transcriptionSchema,
  translationEntrySchema,
  utteranceSchema,
  wordSchema,
  wordsSchema,
} from '../../../src/normalize/records/shapes.js';
import { projectRoot } from '../../../src/util/paths.js';
import { migratedDb } from '../../helpers/migrated-db.js';

function read(file: string): string {
  return readFileSync(join(projectRoot(), file), 'utf8');
}

// ---------------------------------------------------------------------------------------------
// Module lists

/** One list of modules found in a file, and whether it must be complete or may give examples. */
interface ModuleList {
  readonly file: string;
  readonly place: string;
  readonly names: readonly string[];
  /** An example list (ends in "..."): each name must be a module, not every module named. */
  readonly examples?: boolean;
}

/**
 * The text after `start` up to `end`; '' when either is not found. A list the reader cannot find
 * is then empty, which moduleProblems reports: a moved list fails rather than passes.
 */
function between(text: string, start: RegExp, end: RegExp): string {
  const found = start.exec(text);
  if (found === null) return '';
  const rest = text.slice(found.index + found[0].length);
  const to = rest.search(end);
  return to < 0 ? '' : rest.slice(0, to);
}

function quoted(text: string): string[] {
  return [...text.matchAll(/'([a-z_]+)'/g)].map((m) => m[1] as string);
}

function macroText(sql: string, name: string): string {
  return between(sql, new RegExp(`MACRO ${name}\\(`), /\);\s*(\n|$)/);
}

/** Where each file lists the modules: the readers of this test, one per place. */
const MODULE_PLACES: Record<string, (text: string) => Omit<ModuleList, 'file'>[]> = {
  'sql/load/parse-create.sql': (sql) => {
    const record = transformsOf(sql).get('tsync_record') as Record<string, unknown> | undefined;
    const result = (record?.['result'] ?? {}) as Record<string, unknown>;
    const other = macroText(sql, 'tsync_other_modules');
    return [
      {
        place: 'tsync_record, members of "result"',
        names: Object.keys(result).filter((name) => !(RESULT_COLUMNS as readonly string[]).includes(name)),
      },
      {
        place: "tsync_other_modules, the NOT IN list and the `name = '...'` tests",
        names: [
          ...quoted(between(other, /NOT IN \(/, /\)/)),
          ...[...other.matchAll(/name = '([a-z_]+)'/g)].map((m) => m[1] as string),
        ],
      },
    ];
  },
  'sql/load/parse.sql': (sql) => [
    {
      place: 'the r.result.<module> columns of _tsync_src',
      names: [...new Set([...sql.matchAll(/\br\.result\.([a-z_]+)/g)].map((m) => m[1] as string))].filter(
        (name) => !(RESULT_COLUMNS as readonly string[]).includes(name),
      ),
    },
  ],
  'sql/load/rows-module-results.sql': (sql) => {
    const ownBranches = [...sql.matchAll(/list_contains\(modules, '([a-z_]+)'\)/g)].map(
      (m) => m[1] as string,
    );
    return [
      {
        place: "the CASE name WHEN list and the list_contains(modules, '...') branches",
        names: [...quoted(between(sql, /CASE name/, /END AS value/)), ...ownBranches],
      },
      {
        place: "the WHERE name IN list and the list_contains(modules, '...') branches",
        names: [...quoted(between(sql, /WHERE name IN \(/, /\)/)), ...ownBranches],
      },
    ];
  },
  'docs/schema.md': (md) => [
    {
      place: 'module_results, the row of `module`',
      names: [
        ...between(md, /\| `module` \| VARCHAR NOT NULL \|/, /any newer feature/).matchAll(/`([a-z_]+)`/g),
      ]
        .map((m) => m[1] as string)
        .filter((name) => name !== 'result'),
    },
  ],
  'sql/001_tables.sql': (sql) => [
    {
      place: 'the comment on module_results',
      names: between(sql, /-- One row per feature result in `result` \(/, /\.\.\.\)/)
        .split(/[\s,-]+/)
        .filter((word) => word !== ''),
      examples: true,
    },
  ],
};

/** Files that name modules for another reason: this guide's worked example of adding one. */
const NOT_MODULE_LISTS = new Set(['docs/development.md']);

function moduleLists(file: string, text: string): ModuleList[] {
  const reader = MODULE_PLACES[file];
  if (reader === undefined) throw new Error(`no reader for ${file}`);
  return reader(text).map((list) => ({ file, ...list }));
}

function moduleProblems(list: ModuleList, modules: readonly string[]): string[] {
  const problems: string[] = [];
  const names = new Set(list.names);
  const where = `${list.file} (${list.place})`;
  if (list.names.length === 0) return [`${where}: no module found there (has the list moved?)`];
  const extra = list.names.filter((name) => !modules.includes(name));
  const missing = list.examples ? [] : modules.filter((name) => !names.has(name));
  if (extra.length > 0) problems.push(`${where}: ${extra.join(', ')} not in FEATURE_MODULES`);
  if (missing.length > 0) problems.push(`${where}: missing ${missing.join(', ')}`);
  const twice = list.names.filter((name, i) => list.names.indexOf(name) !== i);
  if (twice.length > 0) problems.push(`${where}: ${twice.join(', ')} listed twice`);
  return problems;
}

function sqlAndDocFiles(): string[] {
  const under = (dir: string, ext: string): string[] =>
    readdirSync(join(projectRoot(), dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith(ext))
      .map((name) => `${dir}/${name}`);
  return [...under('sql', '.sql'), ...under('docs', '.md'), 'README.md'].sort();
}

describe('the module list', () => {
  it('is what every SQL file and doc that lists modules lists', () => {
    const problems = Object.keys(MODULE_PLACES).flatMap((file) =>
      moduleLists(file, read(file)).flatMap((list) => moduleProblems(list, FEATURE_MODULES)),
    );
    expect(problems).toEqual([]);
  });

  it('is read from every file of sql/ and docs/ that names several modules', () => {
    // A new place that lists modules needs a reader in MODULE_PLACES, or it would drift unseen.
    const unread = sqlAndDocFiles().filter((file) => {
      if (file in MODULE_PLACES || NOT_MODULE_LISTS.has(file)) return false;
      const text = read(file);
      return FEATURE_MODULES.filter((name) => new RegExp(`\\b${name}\\b`).test(text)).length >= 4;
    });
    expect(unread).toEqual([]);
  });

  it('reports a module missing from a file, and one too many, by file and place', () => {
    // Against what the files list now, so that this holds whatever FEATURE_MODULES holds.
    const file = 'sql/load/rows-module-results.sql';
    const [listed] = moduleLists(file, read(file));
    const drifted = read(file).replace("WHEN 'moderation' THEN moderation", "WHEN 'emotions' THEN emotions");
    const [list] = moduleLists(file, drifted);
    expect(list && listed && moduleProblems(list, listed.names)).toEqual([
      `${file} (the CASE name WHEN list and the list_contains(modules, '...') branches): emotions not in FEATURE_MODULES`,
      `${file} (the CASE name WHEN list and the list_contains(modules, '...') branches): missing moderation`,
    ]);
    const [doc] = moduleLists('docs/schema.md', read('docs/schema.md'));
    expect(doc && moduleProblems(doc, [...doc.names, 'emotions'])).toEqual([
      'docs/schema.md (module_results, the row of `module`): missing emotions',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// json_transform structures

type Node = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & Record<string, unknown>;

function defOf(node: Node): Def {
  return node._zod.def as Def;
}

/**
 * The structure (parsed JSON) of each `json_transform(x, '<structure>')` of `sql`, keyed by the
 * macro it defines (`tsync_record`) or else by `<file>: <x>`.
 */
function transformsOf(sql: string, file = ''): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const m of sql.matchAll(/json_transform\((.+?), '([[{][^']*)'\)/g)) {
    const before = sql.slice(0, m.index);
    const macro = /MACRO (\w+)\([\w, ]*\) AS $/.exec(before)?.[1];
    found.set(macro ?? `${file}: ${m[1] as string}`, JSON.parse(m[2] as string));
  }
  return found;
}

/** Any feature result's wrapper: each of its members is some module's. */
const anyModule = z.union(
  FEATURE_MODULES.map(
    (name) =>
      ((preRecordedResultSchema.shape as Record<string, Node>)[name] ??
        (liveResultSchema.shape as Record<string, Node>)[name]) as Node,
  ) as [Node, ...Node[]],
);

/** What each structure describes: a json_transform of sql/ without an entry here fails. */
const TARGETS: Record<string, Node> = {
  tsync_record: jobRecordSchema,
  tsync_utterances: z.array(utteranceSchema),
  tsync_wrapper: anyModule,
  "sql/load/parse.sql: e['languages']": translationEntrySchema.shape.languages,
  "sql/load/refresh-erased.sql: r.doc -> 'result' -> 'transcription' -> 'languages'":
    transcriptionSchema.shape.languages,
  'sql/load/rows-module-results.sql: error': errorObjectSchema,
};

/** A node's alternatives with optional, nullable and unions opened; the words' custom check as its array. */
function alternatives(node: Node): Node[] {
  if (node === wordsSchema) return [z.array(wordSchema)];
  const def = defOf(node);
  switch (def.type) {
    case 'optional':
    case 'nullable':
      return alternatives(def['innerType'] as Node);
    case 'union':
      return (def['options'] as Node[]).flatMap(alternatives);
    default:
      return [node];
  }
}

function describeNodes(nodes: readonly Node[]): string {
  return [...new Set(nodes.map(describeNode))].join(' | ') || 'nothing';
}

function describeNode(node: Node): string {
  const def = defOf(node);
  return typeof def['format'] === 'string' ? `${def.type} (${def['format']})` : def.type;
}

/** Whether a leaf of the schema takes what DuckDB parses as `type`. */
function leafFits(type: string, node: Node): boolean {
  const def = defOf(node);
  const format = def['format'] as string | undefined;
  const stringValues = (values: unknown[]): boolean => values.every((v) => typeof v === 'string');
  switch (type) {
    case 'JSON':
      return true;
    case 'VARCHAR':
      return (
        def.type === 'string' ||
        (def.type === 'enum' && stringValues(Object.values(def['entries'] as object))) ||
        (def.type === 'literal' && stringValues(def['values'] as unknown[]))
      );
    case 'DOUBLE':
      return def.type === 'number';
    case 'INTEGER':
      return def.type === 'number' && format === 'int32';
    case 'BOOLEAN':
      return def.type === 'boolean';
    case 'TIMESTAMPTZ':
      return def.type === 'string' && format === 'datetime';
    default: {
      const map = /^MAP\(VARCHAR, (.+)\)$/.exec(type);
      if (map === null) throw new Error(`the test cannot read the DuckDB type ${type}: teach leafFits`);
      const value = map[1] as string;
      if (def.type === 'record')
        return alternatives(def['valueType'] as Node).some((v) => leafFits(value, v));
      // An object read as a MAP of JSON values: any member fits.
      return def.type === 'object' && value === 'JSON';
    }
  }
}

/** Problems of `structure` (a json_transform structure) at `path` against the schema's `nodes`. */
function structureProblems(structure: unknown, nodes: readonly Node[], path: string): string[] {
  const options = nodes.flatMap(alternatives);
  const at = path === '' ? 'the whole value' : path;
  if (typeof structure === 'string') {
    if (options.some((node) => leafFits(structure, node))) return [];
    return [`${at}: ${structure}, but the schema has ${describeNodes(options)}`];
  }
  if (Array.isArray(structure)) {
    const arrays = options.filter((node) => defOf(node).type === 'array');
    if (arrays.length === 0) return [`${at}: a list, but the schema has ${describeNodes(options)}`];
    return structureProblems(
      structure[0],
      arrays.map((node) => defOf(node)['element'] as Node),
      `${path}[]`,
    );
  }
  const objects = options.filter((node) => ['object', 'record'].includes(defOf(node).type));
  if (objects.length === 0) return [`${at}: a struct, but the schema has ${describeNodes(options)}`];
  return Object.entries(structure as Record<string, unknown>).flatMap(([name, member]) => {
    const memberPath = path === '' ? name : `${path}.${name}`;
    // A declared member, or any member of a record; a loose object's unknown members do not count.
    const candidates = objects.flatMap((node) => {
      const def = defOf(node);
      if (def.type === 'record') return [def['valueType'] as Node];
      const declared = (def['shape'] as Record<string, Node>)[name];
      return declared === undefined ? [] : [declared];
    });
    if (candidates.length === 0) return [`${memberPath}: not in the schema`];
    return structureProblems(member, candidates, memberPath);
  });
}

function transformProblems(transforms: ReadonlyMap<string, unknown>): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(TARGETS)) {
    if (!transforms.has(name)) problems.push(`${name}: no such json_transform`);
  }
  for (const [name, structure] of transforms) {
    const target = TARGETS[name];
    if (target === undefined) problems.push(`${name}: no schema to check it against (add it to TARGETS)`);
    else problems.push(...structureProblems(structure, [target], '').map((p) => `${name}: ${p}`));
  }
  return problems;
}

/** Every json_transform of every file of sql/. */
function allTransforms(): Map<string, unknown> {
  const files = sqlAndDocFiles().filter((file) => file.endsWith('.sql'));
  return new Map(files.flatMap((file) => [...transformsOf(read(file), file)]));
}

describe('the json_transform structures of sql/', () => {
  it('are found, each of them, and each has a schema to be checked against', () => {
    expect([...allTransforms().keys()].sort()).toEqual(Object.keys(TARGETS).sort());
  });

  it('type only paths the schema has, each with a compatible type', () => {
    expect(transformProblems(allTransforms())).toEqual([]);
  });

  it('report a path the schema lacks and a type it does not take', () => {
    const drifted = read('sql/load/parse-create.sql')
      .replace('"audio_duration": "DOUBLE", "billing_time"', '"region": "VARCHAR", "billing_time"')
      .replace('"error_code": "INTEGER"', '"error_code": "TIMESTAMPTZ"')
      .replace('"language": "VARCHAR", "text"', '"language": "INTEGER", "text"')
      .replace('"words": [{"word": "VARCHAR"', '"words": {"word": "VARCHAR"')
      .replace('"confidence": "DOUBLE"}]\n}]', '"confidence": "DOUBLE"}\n}]');
    const transforms = new Map([...allTransforms(), ...transformsOf(drifted)]);
    transforms.set('sql/load/rows-module-results.sql: error', { status_code: 'JSON', stack: 'JSON' });
    expect(transformProblems(transforms)).toEqual([
      'tsync_utterances: [].language: INTEGER, but the schema has string',
      'tsync_utterances: [].words: a struct, but the schema has array',
      'tsync_record: error_code: TIMESTAMPTZ, but the schema has number (int32)',
      'tsync_record: result.metadata.region: not in the schema',
      'sql/load/rows-module-results.sql: error: stack: not in the schema',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The tables' columns

/** Each table the load appends to, and the query of sql/load/ that makes its rows. */
const ROWS = [
  ['jobs', 'rows-jobs'],
  ['job_records', 'rows-job-records'],
  ['utterances', 'rows-utterances'],
  ['words', 'rows-words'],
  ['module_results', 'rows-module-results'],
] as const;

/** Positions the load counts (BIGINT) in INTEGER columns: not from the record, appended as is. */
const COUNTED = new Set(['utterances.utterance_idx', 'words.utterance_idx', 'words.word_idx']);

/** `table.column: the load gives X, the table has Y` for each column whose types differ. */
async function columnProblems(loadSql: (name: string) => string): Promise<string[]> {
  const instance = await DuckDBInstance.create(await migratedDb('contract.duckdb'));
  const connection = await instance.connect();
  try {
    // The staging connection as a writer sets it up, with an empty batch parsed.
    for (const name of ['parse-create', 'parse-reset', 'parse']) await connection.run(loadSql(name));
    const describe = async (what: string): Promise<string[]> =>
      (await connection.runAndReadAll(`DESCRIBE ${what}`))
        .getRowObjects()
        .map((row) => String(row['column_type']));
    const problems: string[] = [];
    for (const [table, query] of ROWS) {
      const columns = (await connection.runAndReadAll(`DESCRIBE ${table}`)).getRowObjects();
      const given = await describe(loadSql(query).replace(/;\s*$/, ''));
      if (given.length !== columns.length)
        problems.push(`${table}: the load gives ${given.length} columns, the table has ${columns.length}`);
      columns.forEach((column, i) => {
        const name = `${table}.${String(column['column_name'])}`;
        const type = String(column['column_type']);
        const from = given[i];
        if (from === type || (from === 'BIGINT' && type === 'INTEGER' && COUNTED.has(name))) return;
        problems.push(`${name}: the load gives ${from ?? 'nothing'}, the table has ${type}`);
      });
    }
    return problems;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('the rows the load makes', () => {
  const loadSql = (name: string): string => read(`sql/load/${name}.sql`);

  it('have the column types of the tables the migrations make', async () => {
    expect(await columnProblems(loadSql)).toEqual([]);
  });

  it('report a column whose type the load gives otherwise', async () => {
    const drifted = (name: string): string =>
      name === 'parse-create'
        ? loadSql(name).replace('"version": "INTEGER"', '"version": "DOUBLE"')
        : loadSql(name);
    expect(await columnProblems(drifted)).toEqual([
      'jobs.version: the load gives DOUBLE, the table has INTEGER',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The worked example of docs/development.md

const GUIDE = 'docs/development.md';

/** The files of the guide's `diff` block under "Adding a module", each patched by its hunks. */
function patchedByGuide(guide: string): { files: Map<string, string>; problems: string[] } {
  const section = between(guide, /^## Adding a module$/m, /^## /m);
  const block = between(section, /^```diff\n/m, /^```$/m);
  const files = new Map<string, string>();
  const problems: string[] = [];
  let file: string | undefined;
  let hunk: { old: string[]; new: string[] } | undefined;
  const flush = (): void => {
    if (file === undefined || hunk === undefined) return;
    const text = files.get(file) ?? read(file);
    const old = hunk.old.join('\n');
    if (!text.includes(old)) problems.push(`${GUIDE}: a hunk of ${file} no longer applies`);
    else files.set(file, text.replace(old, hunk.new.join('\n')));
    hunk = undefined;
  };
  for (const line of block.split('\n')) {
    if (line.startsWith('--- a/')) {
      flush();
      file = line.slice('--- a/'.length);
    } else if (line.startsWith('+++ ')) {
      // The same file.
    } else if (line.startsWith('@@')) {
      flush();
      hunk = { old: [], new: [] };
    } else if (hunk !== undefined) {
      const [mark, body] = [line.slice(0, 1), line.slice(1)];
      if (mark !== '+') hunk.old.push(body);
      if (mark !== '-') hunk.new.push(body);
    }
  }
  flush();
  if (files.size === 0) problems.push(`${GUIDE}: no diff block under "Adding a module"`);
  return { files, problems };
}

describe('the guide to adding a module', () => {
  it('shows a diff that applies to the files as they are and adds the module to every list', () => {
    const { files, problems } = patchedByGuide(read(GUIDE));
    expect(problems).toEqual([]);
    expect(files.get('src/normalize/records/shapes.ts')).toMatch(/^ {2}keywords: moduleResult\(/m);
    const lists = Object.keys(MODULE_PLACES).flatMap((file) =>
      moduleLists(file, files.get(file) ?? read(file)).flatMap((list) =>
        moduleProblems(list, [...FEATURE_MODULES, 'keywords']),
      ),
    );
    expect(lists).toEqual([]);
  });
});
