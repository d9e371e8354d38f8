/**
 * Every job the worker runs, by BullMQ job name. A new job is a file in jobs/ (built with
 * defineJob, payload validated by zod) plus one line here; its schedule, if any, goes in
 * src/worker/queue.ts.
 */
import type { JobDefinition } from '../src/worker/job-definition.js';
import { billingReportJob } from './billing-report.js';
import { syncJob } from './sync.js';

export const JOBS: Readonly<Record<string, JobDefinition>> = Object.freeze({
  [syncJob.name]: syncJob,
  [billingReportJob.name]: billingReportJob,
});
