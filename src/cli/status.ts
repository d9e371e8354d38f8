/** `transcript-sync status`: what the file holds per kind and how the last run went. */
import { withReadOnlyDatabase } from '../analytics/open-reader.js';
import { resolveSettings } from '../config.js';
import { type Command, flag } from './command.js';
import { renderTable } from './table.js';

export interface KindStatus {
  kind: string;
  watermark: string | null;
  jobs: number;
  pending: number;
  deleted: number;
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
  async run({ flags, stdout }) {
    const settings = resolveSettings(['db', 'lockWait'], [], flags);
    const kinds = await withReadOnlyDatabase(settings.db, settings.lockWait, (db) =>
      db.all<KindStatus>(db.query('status-kinds')),
    );
    const rows = kinds.map((r) => ({ ...r, words: Number(r.words) }));
    if (flag(flags, 'json')) stdout.write(`${JSON.stringify(rows)}\n`);
    else stdout.write(renderTable(rows.map((r) => ({ ...r, last_error: r.last_error ?? '' }))));
    return 0;
  },
};
