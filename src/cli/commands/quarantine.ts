/** `transcript-sync quarantine list|retry`: the records that failed validation, and a second try. */
import { withReader } from '../../analytics/read/open-reader.js';
import { refuseGiven, resolveFormat, resolveSettings } from '../../config/resolve.js';
import { quarantineRetry } from '../../load/quarantine-retry.js';
import { openWriter, quarantineList, type RowSource } from '../../store/index.js';
import { assertFileExists } from '../../util/path-checks.js';
import { counted } from '../../util/plural.js';
import { jsonLine } from '../../util/snake-case.js';
import { type Command, noAction, unexpectedArgument } from '../command.js';
import { withCommandLock } from '../lock-wait.js';
import { renderTable } from '../table.js';

/** Longest first error shown in the table view; JSON holds everything. */
const ERROR_WIDTH = 80;

export const command: Command = {
  name: 'quarantine',
  usage:
    'quarantine list [--db PATH] [--format table|json | --json] [--all]\n       transcript-sync quarantine retry [--db PATH]',
  description: [
    'list   unresolved quarantined records (newest first); --all adds resolved ones; --format json',
    '       (--json) prints each with its record and all its errors.',
    'retry  loads the unresolved records that now validate (e.g. after an upgrade) and prints counts.',
  ].join('\n'),
  positionals: true,
  settings: ['format', 'json', 'includeResolved', 'db', 'lockWait'],
  async run({ flags, env, positionals, stdout, stderr }) {
    const action = parseAction(positionals);
    const settings = {
      ...resolveSettings(['includeResolved', 'db', 'lockWait'], [], flags, env),
      json: resolveFormat('format', flags, env) === 'json',
    };
    // A reader: while a sync or the worker's run holds the file, its writer answers.
    if (action === 'list')
      return withReader(settings.db, { lockWaitMs: settings.lockWait }, (db) => list(db, stdout, settings));
    refuseGiven(flags, ['format', 'json', 'includeResolved'], '`quarantine list`', action);
    // A writer would create the file empty.
    assertFileExists(settings.db, 'nothing to retry: `transcript-sync sync` creates and fills it');
    const lock = { db: settings.db, command: 'quarantine retry', waitMs: settings.lockWait };
    return withCommandLock(stderr, lock, async () => {
      const db = await openWriter(settings.db, { lockWaitMs: settings.lockWait });
      try {
        const { loaded, stillFailing } = await quarantineRetry(db);
        stdout.write(`loaded ${counted(loaded, 'record')}; ${stillFailing} still failing\n`);
        return 0;
      } finally {
        await db.close();
      }
    });
  },
};

function parseAction(positionals: readonly string[]): 'list' | 'retry' {
  const [action, extra] = positionals;
  if (action === 'list' || action === 'retry') {
    if (extra !== undefined) throw unexpectedArgument('quarantine', extra);
    return action;
  }
  throw noAction('quarantine', '`list` or `retry`', action);
}

async function list(
  db: RowSource,
  stdout: NodeJS.WritableStream,
  options: { readonly json: boolean; readonly includeResolved: boolean },
): Promise<number> {
  const rows = await quarantineList(db, { includeResolved: options.includeResolved });
  if (options.json) {
    const parsed = rows.map((row) => ({ ...row, raw: JSON.parse(row.raw) as unknown }));
    stdout.write(jsonLine(parsed, ['raw']));
    return 0;
  }
  const table = rows.map((row) => ({
    job_id: row.jobId ?? '',
    kind: row.kind ?? '',
    seen: row.seenCount,
    last_seen_at: row.lastSeenAt,
    resolved_at: row.resolvedAt ?? '',
    errors: row.errors.length,
    first_error: firstError(row.errors),
  }));
  stdout.write(renderTable(table));
  return 0;
}

function firstError(errors: readonly { path: string; message: string }[]): string {
  const first = errors[0];
  if (!first) return '';
  const text = `${first.path || '(record)'}: ${first.message}`;
  return text.length > ERROR_WIDTH ? `${text.slice(0, ERROR_WIDTH - 1)}…` : text;
}
