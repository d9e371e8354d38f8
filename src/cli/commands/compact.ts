/** `transcript-sync compact`: rewrite the file in the current storage format, smaller. */
import { resolveSettings } from '../../config/resolve.js';
import { compactFile } from '../../load/file/rewrite-file.js';
import { openWriter } from '../../load/open-file.js';
import { createLogger, outcomeWriter } from '../../log.js';
import { writeJson } from '../../util/json-writer.js';
import { type Command, PROGRAM } from '../command.js';

export const command: Command = {
  name: 'compact',
  summary: 'rewrite the DuckDB file in the current storage format (long strings compressed)',
  usage: 'compact [--db PATH] [--json]',
  description: [
    'Files created by transcript-sync before 0.2 use DuckDB storage format v1.0, where `raw` is stored',
    'uncompressed (the file is 1.3-2.1x the JSON received). New files use v1.2.0 (about 0.45x),',
    'which DuckDB 1.2.0 and newer open. This copies every table, view and macro into a new file in',
    'that format, checks the row counts and replaces the file. It needs free space for the copy and',
    'the file to itself: stop the worker first. Run `verify` after, if you like.',
  ].join('\n'),
  logs: true,
  settings: ['json', 'db', 'lockWait', 'logLevel'],
  async run({ flags, env, stdout, stderr }) {
    const settings = resolveSettings(['json', 'db', 'lockWait', 'logLevel'], [], flags, env);
    const logger = createLogger(settings.logLevel, {}, { stream: stderr });
    const db = await openWriter(settings.db, { lockWaitMs: settings.lockWait, logger });
    let result: Awaited<ReturnType<typeof compactFile>>;
    try {
      outcomeWriter(stderr)(
        'info',
        `${PROGRAM}: compacting ${db.path} (a big file takes a while; interrupted, it is left as it was)`,
      );
      result = await compactFile(db);
    } finally {
      await db.close();
    }
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    if (settings.json) stdout.write(`${writeJson({ db: db.path, ...result })}\n`);
    else
      stdout.write(
        `${db.path}: ${mb(result.bytesBefore)} -> ${mb(result.bytesAfter)} (storage format ${result.format})\n`,
      );
    return 0;
  },
};
