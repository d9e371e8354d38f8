/**
 * The simulator's shared shapes: job records as plain JSON, the statuses and kinds the service
 * knows, the fault kinds, and what the server records about each request.
 */

/** A plain JSON job record as the service sends it (spec 2.2). */
export type JobRecord = Record<string, unknown>;

// The simulator restates the spec's kinds and statuses instead of importing src/kinds.ts: it
// models the service and imports nothing from the code it tests, so a change to the client's lists
// cannot silently change the service the tests run against.
export const JOB_STATUSES = ['queued', 'processing', 'done', 'error'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_KINDS = ['pre-recorded', 'live'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const FAULT_KINDS = [
  '408',
  '429',
  '500',
  '502',
  '503',
  '504',
  'reset',
  'slow',
  'truncate',
  'malformed-record',
  'bad-json',
  'next-foreign-origin',
  'next-stuck',
  // Listings that contradict themselves (a glitching cache or replica): no items but a next link;
  // half the items of a page that links onward; past offset 0, a list that ends one item after
  // the offset asked (its total shrank).
  'empty-page',
  'short-page',
  'shrink-total',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Random faults: each list request gets one of `kinds` with probability `rate` (0..1). */
export interface FaultRule {
  readonly rate: number;
  readonly kinds: readonly FaultKind[];
  /** Seed of the fault draws, so a failing run can be replayed; default 1. */
  readonly seed?: number;
}

export interface RequestLogEntry {
  readonly method: string;
  readonly path: string;
  /** The query string without `?`, as received. */
  readonly query: string;
  /** HTTP status sent; 0 when the socket was reset without a response. */
  readonly status: number;
  readonly fault?: FaultKind;
  /** Whether an x-service-key header was present (its value is never recorded). */
  readonly hadKey: boolean;
  /** When the request arrived, ms since the epoch (the process's monotonic clock, fractional). */
  readonly arrivedMs: number;
  /** When its answer was sent (or its socket reset), ms since the epoch, same clock. */
  readonly answeredMs: number;
  /** Requests being handled when it arrived, itself included: its connection's answer not yet sent. */
  readonly inFlight: number;
}

/** What a fault picker (FaultController.pick) sees of a list request. */
export interface FaultRequest {
  readonly path: string;
  /** The query string without `?`, as received. */
  readonly query: string;
  readonly arrivedMs: number;
}

/** Names the fault of a chosen request, or undefined to leave it to the injected and random ones. */
export type FaultPicker = (request: FaultRequest) => FaultKind | undefined;

/** What a generated job should look like; the rest is drawn from the random generator. */
export interface JobSpec {
  readonly kind: JobKind;
  readonly status: JobStatus;
  readonly createdAt: Date;
  /** Number of utterances of the transcript (used once the job is done). */
  readonly utterances: number;
  /** Mean words per utterance; each utterance varies +-50% around it. */
  readonly words: number;
}
