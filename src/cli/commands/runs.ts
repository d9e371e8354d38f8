/** `transcript-sync runs`: the history of sync runs (table `sync_runs`), newest first. */
import { readerOptions, withReader } from '../../analytics/read/open-reader.js';
import { resolveFormat, resolveSettings } from '../../config/resolve.js';
import { onlyKind } from '../../kinds.js';
import { listRuns } from '../../store/index.js';
import type { Command } from '../command.js';
import { writeRows } from '../table.js';

/** Columns of the terminal table; JSON holds every column of sql/queries/runs-list.sql. */
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
  'deleted',
  'expired',
  'retries',
  'error',
] as const;

export const command: Command = {
  name: 'runs',
  usage: 'runs [--kind pre-recorded|live|all] [--limit 20] [--format table|json | --json] [--db PATH]',
  description:
    'One row per run and kind: when it started, how it ended (ok, failed, interrupted, running, or\n' +
    'abandoned: its writer stopped without recording the end, closed by the next run), how long it took,\n' +
    'what it fetched and wrote (deleted: jobs a --full run found gone upstream; expired: gone by the\n' +
    'service retention, kept as they were), and the error of a failed run. --format json (--json) prints\n' +
    'every column of sync_runs (snake_case keys).',
  settings: ['kindShown', 'limit', 'format', 'json', 'db', 'lockWait', 'memory'],
  async run({ flags, env, stdout }) {
    const settings = resolveSettings(['kindShown', 'limit', 'db', 'lockWait', 'memory'], [], flags, env);
    const json = resolveFormat('format', flags, env) === 'json';
    const filter = { kind: onlyKind(settings.kindShown) ?? null, limit: settings.limit };
    const rows = await withReader(settings.db, readerOptions(settings), (db) => listRuns(db, filter));
    writeRows(stdout, json, rows, (row) =>
      Object.fromEntries(TABLE_COLUMNS.map((c) => [c, c === 'error' ? (row[c] ?? '') : row[c]])),
    );
    return 0;
  },
};
