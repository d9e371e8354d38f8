/**
 * What a writer's commit costs as the row groups of a history pile up, apart from the product: a
 * file of the history tables' columns (sql/001_tables.sql, without keys) grown by commits of 300
 * synthetic jobs (55 utterances, 80 words, 3 module results each), each commit checkpointed, so
 * that every commit leaves a row group of its own in every table, as a back-fill's commits do. Then
 * a new process opens the file with the writer's settings at the default budget (`memory_limit`
 * 114 MiB, one thread, no merging of row groups) and commits three more such batches, each
 * checkpointed: its peak RSS (VmHWM) and the bytes each commit wrote.
 *
 * Layouts: `inline` (the record's text, `raw`, a column of `jobs`, as before
 * docs/decisions/0006-the-files-tables.md) and `split` (`raw` in a table of its own, `jobs_raw(job_id, raw)`, as the
 * product's `job_records` now). `merge` rewrites the tables whose rows are small
 * (utterances, words, module_results; `jobs` too when split) into full row groups, as a merge of
 * a back-fill's groups would.
 *
 *   node dist/bench/row-group-history.js build FILE COMMITS inline|split   (adds commits up to COMMITS)
 *   node dist/bench/row-group-history.js merge FILE inline|split
 *   node dist/bench/row-group-history.js probe FILE inline|split            (one JSON line)
 *
 * Probe a copy: it adds three commits to the file it opens.
 */
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { writeBytes } from './tasks.js';

type Layout = 'inline' | 'split';

const JOBS_PER_COMMIT = 300;
const UTTERANCES_PER_JOB = 55;
const WORDS_PER_JOB = 80;
const MODULES_PER_JOB = 3;
const PROBE_COMMITS = 3;

/** The writer's DuckDB settings at the default budget (src/store/file/open-instance.ts writerSettings). */
const WRITER = {
  memory_limit: '114MiB',
  threads: '1',
  wal_autocheckpoint: '16MiB',
  auto_checkpoint_skip_wal_threshold: '0',
  allocator_background_threads: 'true',
  max_vacuum_tasks: '0',
  storage_compatibility_version: 'v1.2.0',
};

function tables(layout: Layout): string[] {
  const raw = layout === 'inline' ? 'raw JSON,' : '';
  return [
    `CREATE TABLE IF NOT EXISTS jobs (id VARCHAR, kind VARCHAR, status VARCHAR, version INTEGER,
       request_id VARCHAR, created_at TIMESTAMPTZ, completed_at TIMESTAMPTZ, error_code INTEGER,
       custom_metadata JSON, post_session_metadata JSON, request_params JSON, file_id VARCHAR,
       filename VARCHAR, file_source VARCHAR, file_audio_duration DOUBLE, number_of_channels INTEGER,
       audio_duration DOUBLE, billing_time DOUBLE, transcription_time DOUBLE,
       number_of_distinct_channels INTEGER, full_transcript VARCHAR, languages VARCHAR[], ${raw}
       content_hash VARCHAR, synced_at TIMESTAMPTZ, deleted_at TIMESTAMPTZ)`,
    ...(layout === 'split' ? ['CREATE TABLE IF NOT EXISTS jobs_raw (job_id VARCHAR, raw JSON)'] : []),
    `CREATE TABLE IF NOT EXISTS utterances (job_id VARCHAR, job_created_at TIMESTAMPTZ, source VARCHAR,
       utterance_idx INTEGER, start DOUBLE, "end" DOUBLE, confidence DOUBLE, channel INTEGER,
       speaker INTEGER, language VARCHAR, text VARCHAR)`,
    `CREATE TABLE IF NOT EXISTS words (job_id VARCHAR, job_created_at TIMESTAMPTZ, source VARCHAR,
       utterance_idx INTEGER, word_idx INTEGER, word VARCHAR, start DOUBLE, "end" DOUBLE, confidence DOUBLE)`,
    `CREATE TABLE IF NOT EXISTS module_results (job_id VARCHAR, job_created_at TIMESTAMPTZ, module VARCHAR,
       success BOOLEAN, is_empty BOOLEAN, exec_time DOUBLE, error_status_code INTEGER,
       error_exception VARCHAR, error_message VARCHAR, results JSON)`,
  ];
}

/** About 2 kB of JSON a job, different for each job. */
const RAW = `'{"id":"job-' || i || '","result":{"transcription":{"full_transcript":"' ||
  repeat(md5(i::VARCHAR) || ' ', 60) || '"}}}'`;
const CREATED = `(TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_seconds(i * 60))`;

/** The statements of commit `n`: jobs n*300 to n*300+299 and their rows. */
function batch(layout: Layout, n: number): string[] {
  const jobs = `range(${n * JOBS_PER_COMMIT}, ${(n + 1) * JOBS_PER_COMMIT}) t(i)`;
  return [
    `INSERT INTO jobs SELECT 'job-' || i, 'pre-recorded', 'done', 1, md5(i::VARCHAR), ${CREATED},
       ${CREATED} + INTERVAL 5 MINUTE, NULL, '{"c":' || (i % 7) || '}', NULL, '{"p":true}',
       md5((i * 3)::VARCHAR), 'file-' || i || '.wav', 'upload', i % 3600 * 1.5, 1, i % 3600 * 1.5,
       i % 3600 * 1.5, 12.5, 1, repeat(md5(i::VARCHAR), 20), ['en'],
       ${layout === 'inline' ? `${RAW},` : ''} md5((i * 7)::VARCHAR), now(), NULL FROM ${jobs}`,
    ...(layout === 'split' ? [`INSERT INTO jobs_raw SELECT 'job-' || i, ${RAW} FROM ${jobs}`] : []),
    `INSERT INTO utterances SELECT 'job-' || i, ${CREATED}, 'transcription', u, u * 2.0, u * 2.0 + 1.5,
       0.9, 0, u % 2, 'en', md5((i * 100 + u)::VARCHAR) FROM ${jobs}, range(${UTTERANCES_PER_JOB}) x(u)`,
    `INSERT INTO words SELECT 'job-' || i, ${CREATED}, 'transcription', w // 15, w % 15,
       'w' || (w * 7 + i) % 5000, w * 0.3, w * 0.3 + 0.2, 0.9 FROM ${jobs}, range(${WORDS_PER_JOB}) x(w)`,
    `INSERT INTO module_results SELECT 'job-' || i, ${CREATED}, 'm' || m, true, false, 0.5, NULL, NULL,
       NULL, '{"r":' || m || '}' FROM ${jobs}, range(${MODULES_PER_JOB}) x(m)`,
  ];
}

async function commit(db: DuckDBConnection, layout: Layout, n: number): Promise<void> {
  await db.run('BEGIN TRANSACTION');
  for (const statement of batch(layout, n)) await db.run(statement);
  await db.run('COMMIT');
  await db.run('CHECKPOINT');
}

async function scalar(db: DuckDBConnection, sql: string): Promise<number> {
  return Number((await db.runAndReadAll(sql)).getRows()[0]?.[0] ?? 0);
}

const MiB = 2 ** 20;

/** The process's peak resident set so far (VmHWM), MiB. */
function peakMiB(): number {
  return Math.round((process.resourceUsage().maxRSS * 1024) / MiB);
}

async function withFile<T>(
  file: string,
  settings: Record<string, string>,
  use: (db: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(file, settings);
  const db = await instance.connect();
  try {
    return await use(db);
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

async function build(file: string, commits: number, layout: Layout): Promise<void> {
  await withFile(file, { ...WRITER, memory_limit: '1GB' }, async (db) => {
    for (const statement of tables(layout)) await db.run(statement);
    const done = (await scalar(db, 'SELECT count(*) FROM jobs')) / JOBS_PER_COMMIT;
    for (let n = done; n < commits; n++) {
      await commit(db, layout, n);
      if (n % 250 === 0) process.stderr.write(`commit ${n} of ${commits}\n`);
    }
  });
}

async function merge(file: string, layout: Layout): Promise<void> {
  const small = ['utterances', 'words', 'module_results', ...(layout === 'split' ? ['jobs'] : [])];
  await withFile(file, { ...WRITER, memory_limit: '2GB' }, async (db) => {
    for (const table of small) {
      await db.run(`CREATE TABLE ${table}_merged AS SELECT * FROM ${table}`);
      await db.run(`DROP TABLE ${table}`);
      await db.run(`ALTER TABLE ${table}_merged RENAME TO ${table}`);
      await db.run('CHECKPOINT');
    }
  });
}

async function probe(file: string, layout: Layout): Promise<void> {
  const atStart = peakMiB();
  await withFile(file, WRITER, async (db) => {
    const jobs = await scalar(db, 'SELECT count(*) FROM jobs');
    const rowGroups: Record<string, number> = {};
    for (const table of ['jobs', 'utterances', 'words', 'module_results']) {
      rowGroups[table] = await scalar(
        db,
        `SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('${table}')`,
      );
    }
    const commits = [];
    for (let k = 0; k < PROBE_COMMITS; k++) {
      const before = writeBytes();
      await commit(db, layout, jobs / JOBS_PER_COMMIT + k);
      commits.push({
        peakMiB: peakMiB(),
        rssMiB: Math.round(process.memoryUsage().rss / MiB),
        writtenMB: (writeBytes() - before) / 1e6,
      });
    }
    process.stdout.write(`${JSON.stringify({ layout, jobs, rowGroups, startMiB: atStart, commits })}\n`);
  });
}

async function main(): Promise<void> {
  const [mode, file, third, fourth] = process.argv.slice(2);
  const layoutOf = (text: string | undefined): Layout => {
    if (text === 'inline' || text === 'split') return text;
    throw new Error(`the layout is inline or split, not ${text ?? 'missing'}`);
  };
  if (mode === 'build' && file && Number.isInteger(Number(third)))
    await build(file, Number(third), layoutOf(fourth));
  else if (mode === 'merge' && file) await merge(file, layoutOf(third));
  else if (mode === 'probe' && file) await probe(file, layoutOf(third));
  else
    throw new Error(
      'usage: row-group-history.js build FILE COMMITS LAYOUT | merge FILE LAYOUT | probe FILE LAYOUT',
    );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
