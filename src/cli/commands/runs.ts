/** `transcript-sync runs`: the history of sync runs (table `sync_runs`), newest first. */

import { withReadOnlyDatabase } from '../../analytics/read/open-reader.js';
import { resolveSettings } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { listRuns } from '../../load/statements/runs.js';
import { type Command, flag, stringFlag } from '../command.js';
import { KIND_OPTION, parseKinds } from '../sync-options.js';
import { writeRows } from '../table.js';

const DEFAULT_LIMIT = 20;
/** Columns of the terminal table; --json prints every column of sql/queries/runs-list.sql. */
const TABLE_COLUMNS = [
  'started_at',
  'kind',
  'mode',
  'outcome',
  'duration_s',
  'jobs_fetched',
  'inserted',
  'updated',
  'quarantined',
  'retries',
  'error',
] as const;

export const command: Command = {
  name: 'runs',
  summary: 'the history of sync runs (sync_runs), newest first',
  usage: 'runs [--kind pre-recorded|live|all] [--limit 20] [--json] [--db PATH]',
  description:
    'One row per run and kind: when it started, how it ended (ok, failed, interrupted, running), how long it took, what it fetched and wrote, and the error of a failed run. --json prints every column of sync_runs (snake_case keys).',
  options: {
    kind: KIND_OPTION,
    limit: { type: 'string', value: 'N', help: `most rows to show (default ${DEFAULT_LIMIT})` },
    json: { type: 'boolean', help: 'print a JSON array on stdout' },
  },
  settings: ['db', 'lockWait'],
  async run({ flags, env, stdout }) {
    const settings = resolveSettings(['db', 'lockWait'], [], flags, env);
    const kinds = parseKinds(flags);
    const kind = kinds.length === 1 ? kinds[0] : null;
    const limit = parseLimit(stringFlag(flags, 'limit'));
    const rows = await withReadOnlyDatabase(settings.db, settings.lockWait, (db) =>
      listRuns(db, { kind: kind ?? null, limit }),
    );
    // --json: every column; the table: the columns a person scans.
    writeRows(stdout, flag(flags, 'json'), rows, (row) =>
      Object.fromEntries(TABLE_COLUMNS.map((c) => [c, c === 'error' ? (row[c] ?? '') : row[c]])),
    );
    return 0;
  },
};

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > 100_000) {
    throw new ConfigError('--limit', `must be a whole number from 1 to 100000 (got "${text}")`);
  }
  return limit;
}
