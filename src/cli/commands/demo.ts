/** `transcript-sync demo` (npm run demo): the simulator synced into ./data/demo.duckdb, then shown. */
import { join, relative, sep } from 'node:path';
import { resolveSettings } from '../../config/resolve.js';
import { syncDefaults } from '../../config/sync-defaults.js';
import { outcomeWriter } from '../../log.js';
import { startSimulator } from '../../simulator/index.js';
import { demoHours, demoJobsByStatus, demoLatestJobs, openReadOnly } from '../../store/index.js';
import { runSync } from '../../sync/run.js';
import type { SyncSummary } from '../../sync/types.js';
import { projectRoot } from '../../util/paths.js';
import type { Command } from '../command.js';
import { withCommandLock } from '../lock-wait.js';
import { ProgressView } from '../progress.js';
import { failedKindsLine, summaryLine } from '../sync-summary.js';
import { renderTable } from '../table.js';

export const command: Command = {
  name: 'demo',
  usage: 'demo [--db PATH] [--jobs N]',
  description: 'Needs no key and no Redis. Run it again: the second run is incremental and changes nothing.',
  logs: true,
  settings: ['demoJobs', 'demoDb', 'logLevel', 'lockWait'],
  async run({ flags, env, stdout, stderr }) {
    const settings = resolveSettings(['demoJobs', 'demoDb', 'logLevel', 'lockWait'], [], flags, env);
    const { demoJobs: jobs, demoDb: dbPath, logLevel, lockWait } = settings;
    // On a terminal the progress lines say enough: the run's info lines stay out of the demo's way.
    // Off one the log is all there is, so it logs as sync does (progress every few seconds).
    const quiet = stderr.isTTY === true && logLevel === 'info';
    const { view, logger } = ProgressView.open(stderr, quiet ? 'warn' : logLevel);
    const sim = await startSimulator({
      preRecorded: Math.ceil(jobs / 2),
      live: Math.floor(jobs / 2),
      seed: 7,
    });
    stdout.write(`Simulator serving ${jobs} jobs at ${sim.url}; syncing into ${dbPath}\n\n`);
    let summary: SyncSummary;
    try {
      // The config's defaults, but no rate limit to speak of: the simulator is in this process.
      const options = {
        ...syncDefaults(),
        baseUrl: sim.url,
        apiKey: sim.apiKey,
        db: dbPath,
        rateLimit: 1_000,
      };
      const lock = { db: dbPath, command: 'demo', waitMs: lockWait, logger };
      summary = await withCommandLock(stderr, lock, () =>
        runSync(options, { ...options, logger, onProgress: view.update }),
      );
      view.done();
      for (const kind of summary.kinds) stdout.write(`${summaryLine(kind)}\n`);
    } finally {
      await sim.close();
    }
    const db = await openReadOnly(dbPath);
    try {
      stdout.write('\nJobs by status\n');
      stdout.write(renderTable(await demoJobsByStatus(db)));
      stdout.write('\nHours of audio and of billing time (done jobs)\n');
      stdout.write(renderTable(await demoHours(db)));
      stdout.write('\nLatest jobs\n');
      stdout.write(renderTable(await demoLatestJobs(db)));
      stdout.write(
        `\nExplore it: ${binFromHere()} query --db ${shellWord(dbPath)} "SELECT kind, count(*) FROM words JOIN jobs ON jobs.id = words.job_id GROUP BY kind"\n`,
      );
    } finally {
      await db.close();
    }
    // As `sync`: what was committed is shown above, and a kind that failed fails the command.
    const failed = failedKindsLine(summary.kinds, 'demo');
    if (failed === undefined) return 0;
    outcomeWriter(stderr)('error', failed);
    return 1;
  },
};

/** The bin as a path from the working folder: after `npm ci` the program is not on the PATH. */
function binFromHere(): string {
  const path = relative(process.cwd(), join(projectRoot(), 'bin', 'transcript-sync'));
  return shellWord(path.includes(sep) ? path : `.${sep}${path}`);
}

/** `text` as one word of a POSIX shell command line. */
function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
