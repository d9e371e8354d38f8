/**
 * What one command line asks for (output, periods, a reconcile's window, `--yes`): flags only, as
 * they configure no process and `--yes` from the environment would confirm what nobody typed. Two
 * commands may give one flag different settings (`query --out FILE`, `export --out DIR`).
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { OUTPUT_FORMATS } from '../analytics/format/output-format.js';
import { parseGroupBy } from '../analytics/group-by.js';
import { DATE_BASES, PERIOD_UNITS, rangeFromFlags } from '../analytics/periods.js';
import { loadPrices } from '../analytics/prices.js';
import { ConfigError } from '../errors.js';
import type { Setting } from './setting.js';
import {
  duration,
  intBetween,
  kinds,
  metadataMatch,
  off,
  oneOf,
  parseDateText,
  parsedBy,
  pastInstant,
  pathText,
  text,
  timerDuration,
} from './values.js';

/** A period as --from or --to takes it (analytics/periods.ts); a day is read by parseDateText. */
function period(date: string, end: 'from' | 'to'): string {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(date) ? parseDateText(date) : undefined;
  if (day && !day.ok) throw new ConfigError(`--${end}`, day.problem);
  rangeFromFlags(end === 'from' ? date : undefined, end === 'to' ? date : undefined);
  return date;
}

export const COMMAND_SETTINGS = {
  format: {
    flag: 'format',
    value: 'FORMAT',
    schema: oneOf(['table', 'json']),
    default: 'table',
    help: 'table, or json on stdout with snake_case keys',
  },
  json: { flag: 'json', ...off, help: 'the same as --format json' },
  full: {
    flag: 'full',
    ...off,
    help: 'a reconcile of the whole history the service lists (back to --service-retention): walk it, update what changed, mark jobs no longer listed deleted (expired when older than the retention)',
  },
  reconcileWindow: {
    flag: 'window',
    value: 'DURATION',
    schema: duration,
    help: 'with --full: reconcile only jobs created in the last DURATION, e.g. 1d (default: all history)',
  },
  since: {
    flag: 'since',
    value: 'ISO',
    schema: pastInstant,
    help: 'fetch jobs created since this past date: a first run starts there (default: all history); on a file with data it moves the window back (never forward); ignored by --full',
  },
  recent: {
    flag: 'recent',
    ...off,
    help: "a reconcile of the recent window (the worker's --recent-window) instead of an incremental sync",
  },
  wait: { flag: 'wait', ...off, help: 'wait for the jobs to finish and print their summaries' },
  waitTimeout: {
    flag: 'timeout',
    value: 'DURATION',
    schema: timerDuration,
    default: '1h',
    help: 'most time --wait waits (at most 24d)',
  },
  kindShown: {
    flag: 'kind',
    value: 'KIND',
    schema: kinds,
    default: 'all',
    help: 'only this kind: pre-recorded, live or all',
  },
  limit: {
    flag: 'limit',
    value: 'N',
    schema: intBetween(1, 100_000),
    default: '20',
    help: 'most rows to show',
  },
  resetSince: {
    flag: 'since',
    value: 'ISO',
    schema: pastInstant,
    help: 'reset: re-sync jobs created from this instant on',
  },
  yes: { flag: 'yes', ...off, help: 'confirm: state reset resets, erase erases' },
  eraseJobs: {
    flag: 'job',
    value: 'ID',
    multiple: true,
    schema: z.array(text),
    help: 'erase: the job with this id (repeatable)',
  },
  eraseMetadata: {
    flag: 'metadata',
    value: 'KEY=VALUE',
    schema: metadataMatch,
    help: 'erase: jobs whose custom_metadata holds VALUE for KEY (compared as text)',
  },
  eraseBefore: {
    flag: 'before',
    value: 'DATE',
    schema: pastInstant,
    help: 'erase: jobs created before this past ISO 8601 date or instant',
  },
  includeResolved: { flag: 'all', ...off, help: 'list: include records already resolved' },
  hashes: {
    flag: 'hashes',
    ...off,
    help: 'also check every raw against its content_hash (reads all of raw)',
  },
  repair: {
    flag: 'repair',
    ...off,
    help: 'fix what is broken (takes the writer lock, waiting --lock-wait as sync does)',
  },
  by: {
    flag: 'by',
    value: 'UNIT',
    schema: oneOf(PERIOD_UNITS),
    default: 'month',
    help: 'period of billing and latency rows: day, week (ISO), month, quarter or year',
  },
  from: {
    flag: 'from',
    value: 'DATE',
    schema: parsedBy((date) => period(date, 'from')),
    help: 'first period, inclusive, UTC (e.g. 2026-11-01, 2026-11)',
  },
  to: {
    flag: 'to',
    value: 'DATE',
    schema: parsedBy((date) => period(date, 'to')),
    help: 'last period, inclusive, UTC (e.g. 2026-11-30, 2026-W47)',
  },
  reportFormat: {
    flag: 'format',
    value: 'FORMAT',
    schema: oneOf(OUTPUT_FORMATS),
    default: 'table',
    help: 'table, csv, json or html',
  },
  includeDeleted: {
    flag: 'include-deleted',
    ...off,
    help: 'also take jobs no longer listed upstream (deleted_at set)',
  },
  includeEmpty: {
    flag: 'include-empty',
    ...off,
    help: 'billing: also list the periods and groups without jobs, as rows of zeros',
  },
  date: {
    flag: 'date',
    value: 'created|completed',
    schema: oneOf(DATE_BASES),
    default: 'created',
    help: 'billing: which instant decides the period; completed matches an invoice',
  },
  groupBy: {
    flag: 'group-by',
    value: 'KEYS',
    schema: parsedBy((keys) => parseGroupBy(keys, '')),
    default: 'kind',
    help: 'billing: kind, model or metadata.<key>, up to 3 comma-separated; one column each',
  },
  prices: {
    flag: 'prices',
    value: 'FILE',
    schema: parsedBy((path) => loadPrices(path, '')),
    help: 'billing: JSON price list {"currency","per_hour":{kind:price},"models":{model:{kind:price}}}; adds cost',
  },
  bom: { flag: 'bom', ...off, help: 'billing CSV: start with a UTF-8 byte order mark (for Excel)' },
  csvComments: {
    flag: 'csv-comments',
    ...off,
    help: 'billing CSV: first lines "# as of ...", "# not counted ...", "# warning ..."',
  },
  sqlFile: { flag: 'file', short: 'f', value: 'FILE', schema: pathText, help: 'read the SQL from FILE' },
  queryFormat: {
    flag: 'format',
    value: 'FORMAT',
    schema: oneOf(['table', 'csv', 'json', 'parquet']),
    help: 'table, csv, json, or parquet with --out (default table; with --out, from its extension)',
  },
  queryOut: {
    flag: 'out',
    value: 'FILE',
    schema: pathText,
    help: 'write the result to FILE (atomically; its folder must exist) instead of stdout',
  },
  readableDirs: {
    flag: 'read',
    value: 'DIR',
    multiple: true,
    // Absolute, with a trailing slash: DuckDB matches them as prefixes.
    schema: z.array(pathText.transform((dir) => `${resolve(dir).replace(/\/+$/, '')}/`)),
    help: 'a folder SQL may read files from, e.g. of export or --publish (repeatable)',
  },
  exportOut: { flag: 'out', value: 'DIR', schema: pathText, help: 'output folder (created when missing)' },
  overwrite: { flag: 'overwrite', ...off, help: 'replace the table folders of a previous export in DIR' },
  demoJobs: {
    flag: 'jobs',
    value: 'N',
    schema: intBetween(2, 100_000),
    default: '400',
    help: 'jobs to simulate, split between the kinds',
  },
  demoDb: { flag: 'db', value: 'PATH', schema: pathText, default: './data/demo.duckdb', help: 'DuckDB file' },
} as const satisfies Record<string, Setting>;
