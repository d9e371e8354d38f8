/** `transcript-sync compact`: rewrite the file in the current storage format, smaller. */
import { resolveFormat, resolveSettings } from '../../config/resolve.js';
import { onOutOfMemory } from '../../errors.js';
import { createLogger, type Logger, outcomeWriter } from '../../log.js';
import { type DuckDbMemory, planMemory } from '../../memory/budget.js';
import { RAW_LIMIT_BYTES } from '../../memory/reader-memory.js';
import { type CompactProgress, compactFile, openWriter } from '../../store/index.js';
import { assertFileExists } from '../../util/path-checks.js';
import { jsonLine } from '../../util/snake-case.js';
import { type Command, PROGRAM } from '../command.js';
import { withCommandLock } from '../lock-wait.js';

export const command: Command = {
  name: 'compact',
  usage: 'compact [--db PATH] [--format table|json | --json]',
  description: [
    'Files created by transcript-sync before 0.2 use DuckDB storage format v1.0, where `raw` is stored',
    'uncompressed (the file is 1.3-2.1x the JSON received). New files use v1.2.0 (about 0.45x),',
    'which DuckDB 1.2.0 and newer open. This copies every table, view and macro into a new file in',
    'that format, checks the row counts and replaces the file. It needs free space for the copy and',
    'the file to itself: it takes the writer lock, waiting up to --lock-wait for a sync or a',
    "worker's run to end. Run `verify` after, if you like. The records as",
    'received (job_records) are copied about 16 MiB of JSON at a time, each a row group of its',
    'own, as a sync writes them, so the new file reads `raw` within the budget. The copy runs within',
    '--memory, logging its progress; a file whose records were written whole (compacted by an',
    'earlier release) it copies again with one thread and a pool of 1 GiB, up to about 1.5 GB of',
    'memory in all, once.',
  ].join('\n'),
  logs: true,
  settings: ['format', 'json', 'db', 'lockWait', 'logLevel', 'memory'],
  async run({ flags, env, stdout, stderr }) {
    const settings = resolveSettings(['db', 'lockWait', 'logLevel', 'memory'], [], flags, env);
    const json = resolveFormat('format', flags, env) === 'json';
    assertFileExists(settings.db, 'nothing to compact: `transcript-sync sync` creates and fills it');
    const logger = createLogger(settings.logLevel, {}, { stream: stderr });
    // Said once, when the file is open: a file refused at the open (no DuckDB file, held) gets only the refusal.
    let announced = false;
    const announce = () => {
      if (announced) return;
      announced = true;
      outcomeWriter(stderr)(
        'info',
        `${PROGRAM}: compacting ${settings.db} (a big file takes a while; interrupted, it is left as it was)`,
      );
    };
    const budget = planMemory(settings.memory, 1).duckdb;
    const compact = async (memory: DuckDbMemory) => {
      const db = await openWriter(settings.db, { lockWaitMs: settings.lockWait, logger, memory });
      try {
        announce();
        return { path: db.path, compacted: await compactFile(db, progressLog(logger)) };
      } finally {
        await db.close();
      }
    };
    const oneThread = { ...budget, memoryLimit: Math.max(budget.memoryLimit, RAW_LIMIT_BYTES), threads: 1 };
    const lock = { db: settings.db, command: 'compact', waitMs: settings.lockWait, logger };
    const result = await withCommandLock(stderr, lock, () =>
      onOutOfMemory(
        () => compact(budget),
        () => {
          logger.info('DuckDB could not copy raw within --memory: copying again with one thread and 1 GiB');
          return compact(oneThread);
        },
      ),
    );
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    if (json) stdout.write(jsonLine({ db: result.path, ...result.compacted }));
    else
      stdout.write(
        `${result.path}: ${mb(result.compacted.bytesBefore)} -> ${mb(result.compacted.bytesAfter)} (storage format ${result.compacted.format})\n`,
      );
    return 0;
  },
};

/** ms between two progress lines of a long copy. */
const PROGRESS_EVERY_MS = 5_000;

/** A log line about the copy of `job_records` every PROGRESS_EVERY_MS, and at its last batch. */
function progressLog(logger: Logger): (progress: CompactProgress) => void {
  let last = Date.now();
  return ({ batches, copied }) => {
    const now = Date.now();
    if (copied < batches && now - last < PROGRESS_EVERY_MS) return;
    last = now;
    logger.info({ batches, copied }, `copied ${copied} of ${batches} batches of records`);
  };
}
