/**
 * `transcript-sync query "SQL"`: runs one read-only SQL text against the DuckDB file and prints
 * the result as a table, CSV or JSON. Writing statements, file access (COPY, ATTACH, read_csv) and
 * setting changes are refused with a message saying so (exit 2).
 */
import { withReadOnlyDatabase } from '../analytics/open-reader.js';
import { parseFormat, render } from '../analytics/output-format.js';
import { runReadOnlyQuery } from '../analytics/read-only-query.js';
import { resolveSettings } from '../config.js';
import { ConfigError } from '../errors.js';
import type { Command } from './command.js';
import { stringFlag } from './command.js';

export const command: Command = {
  name: 'query',
  summary: 'run read-only SQL against the DuckDB file',
  usage: 'query "SQL" [--format table|csv|json] [--db PATH] [--lock-wait 5s]',
  description: [
    'Runs SQL on the database opened read-only: tables (jobs, utterances, words, module_results, ...) and',
    'analytics views (billing_daily, billing_monthly, jobs_by_status, latency_daily, errors_by_code,',
    "languages, job_facts) and transcript_search('text'); see the README (Analytics). Statements that would",
    'write, read or write files, or change settings are refused. Quote the SQL as one argument, e.g.',
    '  transcript-sync query "SELECT * FROM billing_monthly ORDER BY month" --format csv',
  ].join('\n'),
  options: {
    format: { type: 'string', value: 'FORMAT', help: 'table, csv or json (default table)' },
  },
  settings: ['db', 'lockWait'],
  positionals: true,
  async run({ flags, positionals, stdout }) {
    const [sql, extra] = positionals;
    if (sql === undefined)
      throw new ConfigError('query', 'give the SQL as an argument, e.g. query "SELECT count(*) FROM jobs"');
    if (extra !== undefined) {
      throw new ConfigError(
        'query',
        `expected one SQL argument, got ${positionals.length}; quote the whole statement`,
      );
    }
    const format = parseFormat(stringFlag(flags, 'format'), ['table', 'csv', 'json']);
    const { db, lockWait } = resolveSettings(['db', 'lockWait'], [], flags);
    const table = await withReadOnlyDatabase(db, lockWait, (database) => runReadOnlyQuery(database, sql));
    stdout.write(render(table, format, { title: 'query' }));
    return 0;
  },
};
