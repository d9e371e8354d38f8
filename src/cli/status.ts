/** `transcript-sync status`: what the file holds per kind and how the last run went. */
import { withReadOnlyDatabase } from '../analytics/open-reader.js';
import { resolveSettings } from '../config.js';
import { type Command, flag, PROGRAM } from './command.js';
import { renderTable } from './table.js';

export interface KindStatus {
  kind: string;
  watermark: string | null;
  jobs: number;
  pending: number;
  deleted: number;
  /** Rows of `jobs` beyond one per id: 0 unless something other than the loader wrote the file. */
  duplicate_ids: number;
  words: number;
  quarantined: number;
  last_run_at: string | null;
  last_outcome: string | null;
  last_error: string | null;
}

export const command: Command = {
  name: 'status',
  summary: 'show per kind the watermark, pending jobs, last run and row counts',
  usage: 'status [--db PATH] [--json]',
  options: { json: { type: 'boolean', help: 'print JSON on stdout' } },
  settings: ['db', 'lockWait'],
  async run({ flags, stdout, stderr }) {
    const settings = resolveSettings(['db', 'lockWait'], [], flags);
    const kinds = await withReadOnlyDatabase(settings.db, settings.lockWait, (db) =>
      db.all<KindStatus>(db.query('status-kinds')),
    );
    const rows = kinds.map((r) => ({ ...r, words: Number(r.words) }));
    if (flag(flags, 'json')) stdout.write(`${JSON.stringify(rows)}\n`);
    else stdout.write(renderTable(rows.map((r) => ({ ...r, last_error: r.last_error ?? '' }))));
    const duplicates = rows.reduce((n, r) => n + r.duplicate_ids, 0);
    if (duplicates > 0)
      stderr.write(
        `${PROGRAM}: ${duplicates} duplicate job ids in ${settings.db}; run \`${PROGRAM} verify\` for what else broke and the fix\n`,
      );
    return 0;
  },
};
