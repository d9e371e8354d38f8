/** `transcript-sync runs`: the history of sync runs (table `sync_runs`), newest first. */

import { readerOptions, withReader } from '../../analytics/read/open-reader.js';
import { resolveSettings } from '../../config/resolve.js';
import { onlyKind } from '../../kinds.js';
import { listRuns } from '../../load/statements/runs.js';
import type { Command } from '../command.js';
import { writeRows } from '../table.js';

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
    'One row per run and kind: when it started, how it ended (ok, failed, interrupted, running, or abandoned: its writer stopped without recording the end, closed by the next run), how long it took, what it fetched and wrote, and the error of a failed run. --json prints every column of sync_runs (snake_case keys).',
  settings: ['kindShown', 'limit', 'json', 'db', 'lockWait', 'memory'],
  async run({ flags, env, stdout }) {
    const settings = resolveSettings(
      ['kindShown', 'limit', 'json', 'db', 'lockWait', 'memory'],
      [],
      flags,
      env,
    );
    // Both kinds: no filter.
    const kind = onlyKind(settings.kindShown) ?? null;
    const { limit } = settings;
    const rows = await withReader(settings.db, readerOptions(settings), (db) =>
      listRuns(db, { kind: kind ?? null, limit }),
    );
    // --json: every column; the table: the columns a person scans.
    writeRows(stdout, settings.json, rows, (row) =>
      Object.fromEntries(TABLE_COLUMNS.map((c) => [c, c === 'error' ? (row[c] ?? '') : row[c]])),
    );
    return 0;
  },
};
