/**
 * What a job of the worker is: a name, a zod schema for its payload, and what it does. The registry
 * is jobs/index.ts, which src/ never imports: bin/transcript-sync hands it to the program.
 */
import { type Job, UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
import type { BillingFileSettings } from '../analytics/billing-files.js';
import type { Logger } from '../log.js';
import type { PipelineOptions } from '../pipeline.js';
import type { WorkerMetrics } from './metrics.js';
import type { Notifier } from './notify.js';

/** The sync settings the worker was started with; a job picks the kind and mode. */
export type SyncSettings = Omit<
  PipelineOptions,
  'kinds' | 'full' | 'since' | 'reconcileWindow' | 'checkpoints' | 'logger' | 'signal' | 'onProgress'
> & {
  readonly redisUrl: string;
  /** ms back a `recent` reconcile walks (`--recent-window`). */
  readonly reconcileWindow: number;
  /** Where the scheduled billing report job writes its CSV and HTML files. */
  readonly reportDir: string;
  /** Groups, prices, window, staleness and BOM of the scheduled billing files. */
  readonly reportFiles: BillingFileSettings;
};

export interface JobContext {
  readonly job: Job;
  /** Aborted on shutdown (SIGTERM/SIGINT) or when BullMQ cancels the job: stop after the batch in hand. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly settings: SyncSettings;
  readonly metrics: WorkerMetrics;
  /** --notify: told how each run ended; posts on a change from ok to failed and back. */
  readonly notifier?: Notifier;
  /**
   * Runs `write` holding the database file's writer lock, waiting up to --lock-wait while another
   * writer holds it; `write` gets the job's signal, also aborted should the lock be lost. A file
   * still held is thrown as a busy DatabaseError, which puts the run back for later.
   */
  writing<T>(write: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

export interface JobDefinition {
  readonly name: string;
  /**
   * Validates the payload and does the work. Throws to fail the attempt: a TsyncError with
   * `retryable: false` fails the job at once, an InterruptedError hands it back to the queue,
   * anything else is retried by BullMQ with backoff.
   */
  run(data: unknown, context: JobContext): Promise<unknown>;
}

export function defineJob<S extends z.ZodType>(
  name: string,
  payload: S,
  run: (payload: z.output<S>, context: JobContext) => Promise<unknown>,
): JobDefinition {
  return Object.freeze({
    name,
    async run(data: unknown, context: JobContext) {
      const parsed = payload.safeParse(data);
      if (!parsed.success) {
        const issues = parsed.error.issues
          .map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`)
          .join('; ');
        // No retry makes a bad payload good.
        throw new UnrecoverableError(`invalid ${name} job payload: ${issues}`);
      }
      return run(parsed.data, context);
    },
  });
}

/** Every job the worker runs, by BullMQ job name (jobs/index.ts exports it as JOBS). */
export type JobRegistry = Readonly<Record<string, JobDefinition>>;
