/**
 * How a failure travels out of the engine with what the run did. Inside: a kind's run that fails
 * throws `KindRunFailed`, its summary and the cause; runSync decides from the cause whether the
 * next kind runs. Outside: runSync throws the cause itself, so exit codes, retries and `instanceof`
 * see the error that happened; the summaries ride on it as read-only fields (`kindSummaryOf`,
 * `summaryOf`).
 */
import { type ExitCode, isRetryable, TsyncError } from '../errors.js';
import type { KindSummary, SyncSummary } from './types.js';

/** One kind's run failed; what it committed stays, and `summary` says how far it got. */
export class KindRunFailed extends TsyncError {
  readonly code = 'KIND_RUN_FAILED';
  /** The cause's: the caller decides on retries and exit codes as it would for the cause. */
  readonly retryable: boolean;
  readonly exitCode: ExitCode;
  override readonly cause: Error;

  constructor(
    readonly summary: KindSummary,
    cause: Error,
  ) {
    super(`the ${summary.kind} sync failed: ${cause.message}`, {
      cause,
      ...(cause instanceof TsyncError && cause.hint ? { hint: cause.hint } : {}),
    });
    this.cause = cause;
    this.retryable = isRetryable(cause);
    this.exitCode = cause instanceof TsyncError ? cause.exitCode : 1;
  }
}

/** A failure thrown out of runSync, with the summaries of what ran. */
export type RunFailure = Error & {
  /** The kind that was running when a failure stopped the whole run. */
  readonly summary?: KindSummary;
  /** Every kind's summary, when a failure no retry fixes is thrown after all kinds ran. */
  readonly syncSummary?: SyncSummary;
};

/** `error` with the summaries set on it (the same object: its class, code and retryable stay). */
export function withSummaries(
  error: Error,
  summaries: { readonly summary?: KindSummary; readonly syncSummary?: SyncSummary },
): RunFailure {
  for (const [key, value] of Object.entries(summaries)) {
    Object.defineProperty(error, key, { value, enumerable: true, configurable: true, writable: false });
  }
  return error;
}

/** The run's summary a failure carries: runSync's after every kind ran, runPipeline's with its publish. */
export function summaryOf(error: unknown): SyncSummary | undefined {
  return error instanceof Error && 'syncSummary' in error ? (error as RunFailure).syncSummary : undefined;
}

/** The summary of the kind a thrown failure stopped the run in. */
export function kindSummaryOf(error: unknown): KindSummary | undefined {
  return error instanceof Error && 'summary' in error ? (error as RunFailure).summary : undefined;
}
