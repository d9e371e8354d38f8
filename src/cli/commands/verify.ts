/** `transcript-sync verify`: checks the invariants no index enforces; `--repair` applies the fix. */
import { readerOptions, withReader } from '../../analytics/read/open-reader.js';
import { resolveFormat, resolveSettings } from '../../config/resolve.js';
import { onOutOfMemory } from '../../errors.js';
import { type CheckResult, inCheckOrder, openWriter, repairFile, verifyFile } from '../../store/index.js';
import { assertFileExists } from '../../util/path-checks.js';
import { counted } from '../../util/plural.js';
import { type Command, PROGRAM } from '../command.js';
import { withCommandLock } from '../lock-wait.js';
import { writeRows } from '../table.js';

export const command: Command = {
  name: 'verify',
  usage: 'verify [--db PATH] [--format table|json | --json] [--hashes] [--repair]',
  description: [
    'Read-only unless --repair. Checks: jobs.id unique; one job_records row per job; utterances',
    'and words unique on their natural keys; job_records, utterances, words and module_results',
    'attached to a stored job (or utterance); sync_runs unique on (run_id, kind). The file has no',
    'key on these tables (a key makes every run rewrite the history): the loader keeps them.',
    '--hashes also checks that each job_records.raw is byte for byte what was received (its sha1',
    'is content_hash); it reads every raw, so it takes about as long as reading all the JSON.',
    '--repair drops the jobs that break an invariant (with their children), deletes orphan rows',
    'and duplicate run rows, in one transaction; `sync --full` then loads the dropped jobs again.',
    "It takes the writer lock, waiting up to --lock-wait for a sync or a worker's run to end.",
  ].join('\n'),
  settings: ['format', 'json', 'hashes', 'repair', 'db', 'lockWait', 'memory'],
  async run({ flags, env, stdout, stderr }) {
    const settings = resolveSettings(['hashes', 'repair', 'db', 'lockWait', 'memory'], [], flags, env);
    const json = resolveFormat('format', flags, env) === 'json';
    const options = { hashes: settings.hashes };
    let results: CheckResult[];
    let dropped = 0;
    if (settings.repair) {
      assertFileExists(settings.db, 'nothing to repair: `transcript-sync sync` creates and fills it');
      const lock = { db: settings.db, command: 'verify --repair', waitMs: settings.lockWait };
      ({ results, dropped } = await withCommandLock(stderr, lock, async () => {
        const db = await openWriter(settings.db, { lockWaitMs: settings.lockWait });
        try {
          const before = await verifyFile(db, options);
          if (before.every((r) => r.ok)) return { results: before, dropped: 0 };
          const { droppedJobs } = await repairFile(db, before);
          return { results: await verifyFile(db, options), dropped: droppedJobs };
        } finally {
          await db.close();
        }
      }));
    } else {
      // Read-only: while a sync runs, its writer answers (the data as of its last commit). Where
      // DuckDB cannot read raw within the budget (a file whose jobs were written whole), the check
      // of every raw takes a reading with one thread and a higher ceiling (memory/reader-memory.ts).
      const reading = readerOptions(settings);
      results = await withReader(settings.db, reading, (reader) =>
        verifyFile(reader, { ...options, only: 'rows' }),
      );
      if (settings.hashes) {
        const checkRaw = (readsRaw: boolean) =>
          withReader(settings.db, { ...reading, readsRaw }, (reader) =>
            verifyFile(reader, { ...options, only: 'raw' }),
          );
        const raw = await onOutOfMemory(
          () => checkRaw(false),
          () => checkRaw(true),
        );
        results = inCheckOrder([...results, ...raw]);
      }
    }
    writeRows(stdout, json, results, row);
    if (dropped > 0) {
      stderr.write(
        `${PROGRAM}: verify --repair dropped ${counted(dropped, 'job')}; run \`${PROGRAM} sync --full\` to load them again\n`,
      );
    }
    const broken = results.filter((r) => !r.ok);
    if (broken.length === 0) return 0;
    stderr.write(`${PROGRAM}: ${brokenLine(settings.db, broken)}\n`);
    return 1;
  },
};

function row(r: CheckResult): Record<string, unknown> {
  return { check: r.name, result: r.ok ? 'ok' : 'BROKEN', rows: r.count, sample: r.sample.join(' ') };
}

function brokenLine(db: string, broken: readonly CheckResult[]): string {
  const what = broken.map((r) => `${r.name}: ${r.count} broken`).join('; ');
  const refetch = broken.some((r) => r.repair === 'drop-jobs');
  const hashes = broken.some((r) => r.name.includes('sha1')) ? ' --hashes' : '';
  return `${counted(broken.length, 'invariant')} broken in ${db} (${what}); fix: run \`${PROGRAM} verify --repair${hashes}\`${
    refetch ? `, then \`${PROGRAM} sync --full\` to load the dropped jobs again` : ''
  }`;
}
