/** `transcript-sync export --out DIR`: Hive-partitioned Parquet files of the tables, for other engines. */
import { join } from 'node:path';
import { exportParquet } from '../../analytics/publish/export-parquet.js';
import { readerOptions, withReader } from '../../analytics/read/open-reader.js';
import { resolveSettings } from '../../config/resolve.js';
import { EXPORTED_DATASETS } from '../../store/index.js';
import { assertNotStoreFile, assertOutputFolder } from '../../util/path-checks.js';
import type { Command } from '../command.js';

const SETTINGS = ['exportOut', 'overwrite', 'includeDeleted', 'db', 'lockWait', 'memory'] as const;

export const command: Command = {
  name: 'export',
  usage: 'export --out DIR [--overwrite] [--include-deleted] [--db PATH] [--lock-wait 5s] [--memory 512MB]',
  description: [
    'Writes DIR/<table>/kind=<kind>/month=<YYYY-MM>/data_0.parquet for jobs, utterances, words and',
    "module_results (month: UTC month of the job's created_at). kind and month are in the folder names",
    'only: read with hive partitioning, e.g. in DuckDB',
    "  SELECT kind, month, count(*) FROM read_parquet('DIR/jobs/**/*.parquet', hive_partitioning = true) GROUP BY ALL",
    'jobs leave out content_hash; the records as received (job_records) are not exported. Tables',
    'are written to a staging folder in DIR and moved into place at the end, so a failed export, or',
    'one SIGINT or SIGTERM stops, changes nothing.',
  ].join('\n'),
  settings: SETTINGS,
  async run({ flags, env, stdout }) {
    const settings = resolveSettings(SETTINGS, [], flags, env);
    assertOutputFolder(settings.exportOut, '--out');
    // The table folders are replaced whole: none may be, or hold, the database's files.
    for (const table of EXPORTED_DATASETS)
      assertNotStoreFile(
        join(settings.exportOut, table),
        settings.db,
        '--out',
        'choose another --out folder',
      );
    const reading = { ...readerOptions(settings), writesParquet: true };
    const { exportOut: outDir, includeDeleted, overwrite } = settings;
    const tables = await withReader(settings.db, reading, (db) =>
      exportParquet({ db, outDir, includeDeleted, overwrite }),
    );
    const width = Math.max(...tables.map((t) => t.table.length));
    for (const t of tables)
      stdout.write(`${t.table.padEnd(width)}  ${String(t.rows).padStart(10)} rows  ${t.dir}\n`);
    return 0;
  },
};
