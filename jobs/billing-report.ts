/**
 * The scheduled billing report: writes the billing figures of the last complete day and month
 * (UTC), CSV and HTML, into the report directory, atomically, so a finance team finds yesterday's
 * and last month's figures without running anything. A period whose figures did not change keeps
 * its files untouched. It runs in the sync queue, so it never overlaps a sync of the same file.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { writeLastCompleteBillingReports } from '../src/analytics/billing-files.js';
import { withReadOnlyDatabase } from '../src/analytics/open-reader.js';
import { defineJob } from '../src/worker/job-definition.js';
import { REPORT_JOB } from '../src/worker/queue.js';

export const billingReportPayload = z.strictObject({
  /** The instant whose previous day and month are reported; default: when the job runs. */
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
    const results = await withReadOnlyDatabase(settings.db, settings.lockWait, (db) =>
      writeLastCompleteBillingReports({
        db,
        dir: settings.reportDir,
        ...(now ? { now: new Date(now) } : {}),
      }),
    );
    const files = results.flatMap((r) => r.files);
    const written = files.filter((f) => f.written).map((f) => f.path);
    logger.info(
      { dir: settings.reportDir, written: written.length, unchanged: files.length - written.length },
      'billing reports written',
    );
    return { written, periods: results.map((r) => `${r.by}:${r.period}`) };
  },
);
