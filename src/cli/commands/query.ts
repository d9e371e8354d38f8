/** `transcript-sync query`: read-only SQL against the DuckDB file, as the DuckDB CLI takes it. */
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { render } from '../../analytics/format/output-format.js';
import type { ResultTable } from '../../analytics/format/result-table.js';
import { replaceFileAtomic, writeFileAtomic } from '../../analytics/publish/atomic-file.js';
import { readerOptions, withFilesReader, withReader } from '../../analytics/read/open-reader.js';
import type { Reader } from '../../analytics/read/reader.js';
import { resolveAll, resolveFormat } from '../../config/resolve.js';
import type { SettingValue } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { assertInputFolder, assertNotStoreFile, assertOutputFolder } from '../../util/path-checks.js';
import type { Command } from '../command.js';

/** What `query` writes; parquet only into a file. */
type QueryFormat = SettingValue<'queryFormat'>;
/** The format of `--out FILE` without --format, by the file's extension. */
const EXTENSION_FORMATS: Readonly<Record<string, QueryFormat>> = {
  '.json': 'json',
  '.csv': 'csv',
  '.parquet': 'parquet',
};

export const command: Command = {
  name: 'query',
  usage:
    'query "SQL" | -f FILE | - [--format table|csv|json|parquet | --json] [--out FILE] [--read DIR] [--db PATH] [--lock-wait 5s] [--memory 512MB]',
  description: [
    'Runs SQL on the database read-only: tables (jobs, utterances, words, module_results, ...) and',
    'analytics views (billing_daily, billing_monthly, jobs_by_status, latency_daily, errors_by_code,',
    "languages, job_facts) and transcript_search('text') (docs/schema.md). Several",
    'statements separated by ; each print their result as soon as it is complete (JSON: one array per',
    'statement, one after the other); a failing statement stops the text after the results before it.',
    'SQL comes from the argument (one that opens with a -- comment too), from a file (-f FILE) or',
    'from stdin (-). CALL of a table function reads like a SELECT of it. JSON, list and struct',
    'columns are nested values in --format json; numbers are exact (DECIMAL and BIGINT as DuckDB',
    'spells them; NaN and Infinity as strings); timestamps ISO 8601 (Z only for TIMESTAMPTZ). --out',
    'FILE without --format takes the format from the extension: .json, .csv, or .parquet (one',
    'statement, its own column types, HUGEINT as DECIMAL(38,0); what Parquet cannot hold, such as a',
    'negative INTERVAL, is refused). EXPLAIN prints its plan whole. Statements that write, change',
    'settings, or read files outside the --read folders are refused. With --read and no file at',
    '--db, the SQL reads those files alone (a published dataset needs no database). While a sync',
    'runs, it answers with the data of its last commit. Examples:',
    '  transcript-sync query "SELECT * FROM billing_monthly ORDER BY month" --format csv',
    '  transcript-sync query "SELECT * FROM jobs WHERE kind = \'live\'" --out live-jobs.parquet',
    '  transcript-sync query --read ./published "SELECT count(*) FROM read_parquet(\'./published/words/**/*.parquet\')"',
  ].join('\n'),
  settings: ['sqlFile', 'queryFormat', 'json', 'queryOut', 'readableDirs', 'db', 'lockWait', 'memory'],
  positionals: true,
  async run({ flags, env, positionals, stdout, stdin }) {
    const settings = resolveAll(
      ['sqlFile', 'queryOut', 'readableDirs', 'db', 'lockWait', 'memory'],
      flags,
      env,
    );
    const sql = await sqlText(positionals, settings.sqlFile, stdin);
    const outText = settings.queryOut;
    const { db } = settings;
    const out = outText === undefined ? undefined : outPath(outText, db);
    const format = resolveFormat('queryFormat', flags, env) ?? formatOfOut(outText);
    const readableDirs = settings.readableDirs ?? [];
    for (const dir of readableDirs) assertInputFolder(dir, '--read');
    const options = { ...readerOptions(settings), readableDirs };
    // Files alone need no database: with --read and no file at --db, the SQL runs on an empty one.
    const filesOnly = readableDirs.length > 0 && !existsSync(db);
    const withReading = <T>(fn: (reader: Reader) => Promise<T>): Promise<T> =>
      (filesOnly ? withFilesReader(FILES_ONLY, options, fn) : withReader(db, options, fn)).catch(
        (error: unknown) => {
          throw filesOnly ? noDatabaseHint(error, db) : error;
        },
      );
    if (format === 'parquet') {
      if (out === undefined)
        throw new ConfigError('--format', 'parquet is written to a file: add --out FILE');
      await replaceFileAtomic(out, async (temp) => {
        await withReading((reader) => reader.userQueryParquet(sql, temp));
      });
      return 0;
    }
    // Each result is printed as soon as it is complete, as the DuckDB CLI does: tables and CSV
    // apart by a blank line, JSON one document per statement. A file is written whole, or not at all.
    const texts: string[] = [];
    const print = (table: ResultTable) => {
      const text = `${texts.length > 0 && format !== 'json' ? '\n' : ''}${render(table, format, { title: 'query' })}`;
      texts.push(text);
      if (out === undefined) stdout.write(text);
    };
    await withReading((reader) => reader.userQuery(sql, print));
    if (out !== undefined) await writeFileAtomic(out, texts.join(''));
    return 0;
  },
};

/** What names the empty database of a query over --read files alone, in messages. */
const FILES_ONLY = 'the --read files (no database file)';

/** A table the SQL names that an empty database has not: say why it is empty. */
function noDatabaseHint(error: unknown, db: string): unknown {
  if (!(error instanceof ConfigError) || !/Catalog Error/.test(error.message)) return error;
  return new ConfigError('query', error.message.replace(/^query: /, ''), {
    hint: `${db} does not exist, so only files below --read can be read (read_parquet(...)); run \`transcript-sync sync\` first to query its tables`,
    cause: error,
  });
}

/** Without --format: table, or the format of --out's extension; an extension it cannot tell is refused. */
function formatOfOut(out: string | undefined): QueryFormat {
  if (out === undefined) return 'table';
  const extension = extname(out).toLowerCase();
  const found = EXTENSION_FORMATS[extension];
  if (!found) {
    throw new ConfigError(
      '--out',
      `cannot tell the format from ${extension === '' ? 'a name without an extension' : `"${extension}"`} (${out}); name the file .json, .csv or .parquet, or give --format`,
    );
  }
  return found;
}

/**
 * --out as an absolute path into a writable folder that exists (created by no one but the user),
 * neither the database `db` nor a file the store keeps beside it.
 */
function outPath(text: string, db: string): string {
  const path = resolve(text);
  const dir = dirname(path);
  assertOutputFolder(dir, '--out', 'a file in a writable folder');
  if (!existsSync(dir)) throw new ConfigError('--out', `folder ${dir} does not exist; create it first`);
  if (existsSync(path) && statSync(path).isDirectory())
    throw new ConfigError('--out', `${text} is a folder; give the name of a file in it`);
  assertNotStoreFile(text, db, '--out', 'write the result to another file');
  return path;
}

async function sqlText(
  positionals: readonly string[],
  file: string | undefined,
  stdin: AsyncIterable<string | Buffer> | undefined,
): Promise<string> {
  const [first, extra] = positionals;
  if (extra !== undefined) {
    throw new ConfigError(
      'query',
      `expected one SQL argument, got ${positionals.length}; quote the whole text (or use -f FILE)`,
    );
  }
  if (file !== undefined && first !== undefined)
    throw new ConfigError('query', 'give the SQL either as an argument or with -f FILE, not both');
  if (file !== undefined) return readSqlFile(file);
  if (first === '-') return readStdin(stdin);
  if (first === undefined)
    throw new ConfigError(
      'query',
      'give the SQL as an argument, -f FILE or - (stdin), e.g. query "SELECT count(*) FROM jobs"',
    );
  return first;
}

async function readSqlFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError('-f', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`, {
      hint: 'give the path of a file of SQL statements',
    });
  }
}

async function readStdin(stdin: AsyncIterable<string | Buffer> | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin ?? []) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}
