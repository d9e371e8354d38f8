/**
 * One spelling of the output format on every command that prints one: `--format` (table and json
 * everywhere, csv, html or parquet where a command writes them), `--json` the same as `--format
 * json`; a flag that does nothing for the format chosen is refused as a flag given where it does
 * not apply is.
 */
import { describe, expect, it } from 'vitest';
import { runMain } from '../../helpers/cli.js';
import { migratedDb } from '../../helpers/migrated-db.js';

const COMMANDS: readonly (readonly string[])[] = [
  ['status'],
  ['runs'],
  ['state', 'show'],
  ['config', 'show'],
  ['verify'],
  ['quarantine', 'list'],
  ['query', 'SELECT 42 AS answer'],
  ['report', 'status'],
];

describe('--format', () => {
  it.each(COMMANDS.map((args) => [args.join(' '), args] as const))(
    '%s: --format json prints what --json prints, --format table the default',
    async (_, args) => {
      const db = await migratedDb('format.duckdb');
      const run = (...extra: string[]) => runMain([...args, '--db', db, ...extra]);
      const json = await run('--json');
      const asJson = await run('--format', 'json');
      expect(asJson.code, asJson.stderr).toBe(json.code);
      expect(asJson.stdout).toBe(json.stdout);
      expect(() => JSON.parse(asJson.stdout)).not.toThrow();
      const table = await run('--format', 'table');
      expect(table.stdout).toBe((await run()).stdout);
      expect(table.stdout).not.toBe(asJson.stdout);
    },
  );

  it('takes only the formats the command writes, and --json with no other format', async () => {
    const db = await migratedDb('format.duckdb');
    // Refused before the file is opened.
    for (const command of [['runs'], ['verify'], ['state', 'show'], ['status']]) {
      const csv = await runMain([...command, '--format', 'csv', '--db', '/nonexistent/x.duckdb']);
      expect(csv.code, command.join(' ')).toBe(2);
      expect(csv.stderr).toBe('transcript-sync: --format: must be one of table, json (got "csv")\n');
    }
    const both = await runMain(['status', '--json', '--format', 'table', '--db', db]);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      'transcript-sync: --json: is the same as --format json, and --format says table; give one of them\n',
    );
    const same = await runMain(['report', 'status', '--json', '--format', 'json', '--db', db]);
    expect(same.code, same.stderr).toBe(0);
  });

  it('refuses a flag that does nothing for the format chosen', async () => {
    const db = await migratedDb('format.duckdb');
    for (const [args, line] of [
      [['--bom'], '--bom: applies to CSV (--format csv), not to --format table'],
      [
        ['--format', 'json', '--csv-comments'],
        '--csv-comments: applies to CSV (--format csv), not to --format json',
      ],
      [['--json', '--bom'], '--bom: applies to CSV (--format csv), not to --format json'],
      [['--format', 'html', '--bom'], '--bom: applies to CSV (--format csv), not to --format html'],
    ] as const) {
      const result = await runMain(['report', 'billing', ...args, '--db', db]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(`transcript-sync: ${line}\n`);
    }
    const csv = await runMain([
      'report',
      'billing',
      '--format',
      'csv',
      '--bom',
      '--csv-comments',
      '--db',
      db,
    ]);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.startsWith('\uFEFF#')).toBe(true);
    const retry = await runMain(['quarantine', 'retry', '--format', 'json', '--db', db]);
    expect(retry.stderr).toBe('transcript-sync: --format: applies to `quarantine list`, not to retry\n');
    const reset = await runMain(['state', 'reset', '--kind', 'all', '--yes', '--json', '--db', db]);
    expect(reset.stderr).toBe('transcript-sync: --json: applies to `state show`, not to reset\n');
    for (const flag of [['--yes'], ['--since', '2026-01-01']]) {
      const show = await runMain(['state', 'show', ...flag, '--db', db]);
      expect(show.code).toBe(2);
      expect(show.stderr).toBe(`transcript-sync: ${flag[0]}: applies to \`state reset\`, not to show\n`);
    }
  });
});
