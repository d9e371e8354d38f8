/** `transcript-sync state show|reset`: a kind's checkpoint in the file and in Redis, and its reset. */
import { withReader } from '../../analytics/read/open-reader.js';
import { refuseGiven, resolveAll, resolveFormat } from '../../config/resolve.js';
import { ConfigError } from '../../errors.js';
import { openWriter } from '../../store/index.js';
import {
  DuckDbCheckpointStore,
  fileCheckpoint,
  resolveCheckpoint,
} from '../../sync/checkpoints/duckdb-store.js';
import { EMPTY_CHECKPOINT } from '../../sync/checkpoints/schema.js';
import type { Checkpoint } from '../../sync/types.js';
import { assertFileExists } from '../../util/path-checks.js';
import { type Command, type CommandContext, noAction, unexpectedArgument } from '../command.js';
import { withCommandLock } from '../lock-wait.js';
import { writeRows } from '../table.js';

/** What both actions resolve (the format is show's alone). */
const SETTINGS = ['kindShown', 'resetSince', 'yes', 'db', 'lockWait', 'redisUrl', 'redisPrefix'] as const;

export const command: Command = {
  name: 'state',
  usage: 'state show [--kind K] [--format table|json | --json] | state reset --kind K [--since ISO] --yes',
  description: [
    'show   per kind: the watermark and pending jobs in the DuckDB file and (with REDIS_URL) in Redis,',
    '       and the watermark the next run starts from (the earlier of the two).',
    "reset  sets the kind's watermark to --since (or clears it: the next run backfills all history),",
    '       in the file and in Redis. Needs --yes. Refused while a sync or worker writes the file.',
  ].join('\n'),
  positionals: true,
  settings: ['kindShown', 'resetSince', 'yes', 'format', 'json', 'db', 'lockWait', 'redisUrl', 'redisPrefix'],
  async run(context) {
    const [action, extra] = context.positionals;
    if (extra !== undefined) throw unexpectedArgument('state', extra);
    if (action === 'show') return show(context);
    if (action === 'reset') return reset(context);
    throw noAction('state', '`show` or `reset`', action);
  },
};

async function show({ flags, env, stdout }: CommandContext): Promise<number> {
  const settings = resolveAll(SETTINGS, flags, env);
  refuseGiven(flags, ['resetSince', 'yes'], '`state reset`', 'show');
  const json = resolveFormat('format', flags, env) === 'json';
  const remote = await redisStore(settings.redisUrl, settings.redisPrefix);
  try {
    // A reader: while a sync or the worker's run holds the file, its writer answers.
    const rows = await withReader(settings.db, { lockWaitMs: settings.lockWait }, async (db) => {
      const read = [];
      for (const kind of settings.kindShown) {
        const duckdb = await fileCheckpoint(db, kind);
        const redis = remote ? await remote.load(kind) : 'not configured';
        const next = await resolveCheckpoint(db, remote, kind);
        read.push({ kind, next_run_from: next.watermark, duckdb, redis });
      }
      return read;
    });
    writeRows(stdout, json, rows, (r) => ({
      kind: r.kind,
      next_run_from: r.next_run_from ?? '(beginning)',
      duckdb_watermark: describe(r.duckdb),
      redis_watermark: typeof r.redis === 'string' ? r.redis : describe(r.redis),
      pending: r.duckdb?.pending.length ?? 0,
      backfill_slice: r.duckdb?.slice ? `${r.duckdb.slice.after ?? '…'} → ${r.duckdb.slice.before}` : '',
    }));
    return 0;
  } finally {
    await remote?.close();
  }
}

function describe(checkpoint: Checkpoint | null): string {
  return checkpoint ? (checkpoint.watermark ?? '(beginning)') : '(none)';
}

async function reset({ flags, env, stdout, stderr }: CommandContext): Promise<number> {
  const settings = resolveAll(SETTINGS, flags, env);
  refuseGiven(flags, ['format', 'json'], '`state show`', 'reset');
  // Named on the command line, never taken from a default: a reset of the wrong kind loses work.
  if (flags['kind'] === undefined) {
    throw new ConfigError('--kind', 'state reset needs the kind to reset: pre-recorded, live or all');
  }
  const { kindShown: kinds, resetSince: since } = settings;
  const from = since ? `jobs created from ${since.toISOString()} on` : 'all history';
  if (!settings.yes) {
    throw new ConfigError(
      '--yes',
      `state reset makes the next ${kinds.join(' and ')} run re-fetch ${from}; add --yes to confirm`,
    );
  }
  assertFileExists(
    settings.db,
    'nothing to reset: the first sync starts from the beginning (or --since) anyway',
  );
  const remote = await redisStore(settings.redisUrl, settings.redisPrefix);
  try {
    const lock = { db: settings.db, command: 'state reset', waitMs: settings.lockWait };
    await withCommandLock(stderr, lock, async () => {
      const db = await openWriter(settings.db, { lockWaitMs: settings.lockWait });
      try {
        const local = new DuckDbCheckpointStore(db);
        for (const kind of kinds) {
          const before = await resolveCheckpoint(db, remote, kind);
          // Keeps the pending list (those jobs are re-checked anyway); drops the backfill slice.
          const after = {
            ...EMPTY_CHECKPOINT,
            pending: before.pending,
            watermark: since?.toISOString() ?? null,
          };
          await db.transaction(() => local.save(kind, after));
          await remote?.save(kind, after);
          const was = before.watermark ?? 'unset';
          stdout.write(`${kind}: checkpoint reset (watermark was ${was}); the next run re-fetches ${from}\n`);
        }
      } finally {
        await db.close();
      }
    });
  } finally {
    await remote?.close();
  }
  return 0;
}

/** The Redis copy of the checkpoints with REDIS_URL; ioredis loads only then. */
async function redisStore(url: string | undefined, prefix: string) {
  if (!url) return undefined;
  const { RedisCheckpointStore } = await import('../../sync/checkpoints/redis-store.js');
  return new RedisCheckpointStore(url, prefix);
}
