/**
 * The scheduled billing report: writes the billing figures of every complete day and month of a
 * recent window (UTC), CSV and HTML, into the report directory, atomically, so a finance team finds
 * them without running anything. A period whose figures did not change keeps its files untouched;
 * one missed or changed since (late completions) is (re)written. A mirror without a successful
 * sync gets no files. It runs in the sync queue, so it never overlaps a sync of the same file.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { writeRecentBillingReports } from '../src/analytics/billing-files.js';
import { readerOptions, withReader } from '../src/analytics/read/open-reader.js';
import { defineJob } from '../src/worker/job-definition.js';
import { REPORT_JOB } from '../src/worker/queue.js';

export const billingReportPayload = z.strictObject({
  /** The instant whose complete periods are reported; default: when the job runs. */
  now: z.iso.datetime({ offset: true }).optional(),
});

export const billingReportJob = defineJob(
  REPORT_JOB,
  billingReportPayload,
  async ({ now }, { settings, logger }) => {
    if (!existsSync(settings.db)) {
      logger.info({ db: settings.db }, 'no database yet: the billing report waits for a first sync');
      return { written: [] };
    }
    const results = await withReader(settings.db, readerOptions(settings), (db) =>
      writeRecentBillingReports({
        db,
        dir: settings.reportDir,
        settings: settings.reportFiles,
        ...(now ? { now: new Date(now) } : {}),
      }),
    );
    if (results.some((r) => r.report.as_of === null)) {
      logger.warn(
        { db: settings.db },
        'no billing report written: the mirror has no successful sync yet (check the sync errors)',
      );
      return { written: [], skipped: 'no successful sync' };
    }
    const files = results.flatMap((r) => r.files);
    const written = files.filter((f) => f.written).map((f) => f.path);
    const stale = results.some((r) => r.stale);
    logger[stale ? 'warn' : 'info'](
      { dir: settings.reportDir, written: written.length, unchanged: files.length - written.length, stale },
      stale
        ? 'billing reports written, marked STALE: the last successful sync is old'
        : 'billing reports written',
    );
    return { written, periods: results.map((r) => `${r.by}:${r.period}`), stale };
  },
);
