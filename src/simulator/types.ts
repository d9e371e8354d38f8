/** The simulator's shared shapes: records, kinds, statuses, faults, the request log and its options. */

/** A plain JSON job record as the service sends it (spec 2.2). */
export type JobRecord = Record<string, unknown>;

// Restated from the spec, not imported from src/kinds.ts: the simulator models the service, so a
// change to the client's lists cannot silently change the service the tests run against.
export const JOB_STATUSES = ['queued', 'processing', 'done', 'error'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_KINDS = ['pre-recorded', 'live'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** Faults answered with their HTTP status and an error body in place of the page. */
export const STATUS_FAULT_KINDS = ['408', '429', '500', '502', '503', '504'] as const;

export const FAULT_KINDS = [
  ...STATUS_FAULT_KINDS,
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

/** What a fault picker (Faults.pick) sees of a list request. */
export type FaultRequest = Pick<RequestLogEntry, 'path' | 'query' | 'arrivedMs'>;

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

/** What an account holds; what is left out is GENERATE_DEFAULTS (defaults.ts). */
export interface GenerateOptions {
  seed?: number;
  /** Jobs of each kind, unless `jobs` is given. The kinds interleave in this proportion. */
  preRecorded?: number;
  live?: number;
  /** Jobs in all, alternating kinds (pre-recorded first), when neither preRecorded nor live is given. */
  jobs?: number;
  /** Mean utterances per done job (each job varies +-50%). */
  utterancesPerJob?: number;
  /** Mean words per utterance (each utterance varies +-50%). */
  wordsPerUtterance?: number;
  /** created_at range [from, to) the jobs are spread over; default the `days` before `to`. */
  from?: Date;
  to?: Date;
  /** Instead of from/to: the history starts at `start` with `jobsPerDay` jobs a day (prefix-stable). */
  timeline?: { readonly start: Date; readonly jobsPerDay: number };
  /** Every record (of `kind`, or of both) gets an `annotations` text of `bytes` characters. */
  recordPadding?: { readonly kind?: JobKind; readonly bytes: number };
}

/** A simulator's options; host, apiKey, limitCap and latencyMs default to SERVER_DEFAULTS (defaults.ts). */
export interface SimulatorOptions extends GenerateOptions {
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  apiKey?: string;
  /** Most items served per page. */
  limitCap?: number;
  /** Largest offset served; a deeper one is refused with 400 (a service that caps offsets). Default none. */
  offsetCap?: number;
  /** Added before every response, ms. */
  latencyMs?: number;
  /** Serve these instead of generating (the simulator takes them over: edits change them). */
  records?: JobRecord[];
  /** A live account: jobs arrive, settle and are deleted as the clock moves (see GrowOptions). */
  grow?: GrowOptions;
  /** The time, ms since the epoch; default Date.now. A growing account follows it. */
  clock?: () => number;
  /** Most bytes of generated JSON kept for the next requests, default 32 MiB. */
  cacheBytes?: number;
  /** Initial random faults. */
  faults?: FaultRule;
  /** Jobs created longer ago (ms, by `clock`) are not listed; default none (data.setRetention). */
  retentionMs?: number | null;
  /** Called with each request's log entry (the CLI logs them). */
  onRequest?: (entry: RequestLogEntry) => void;
  /** POST the service's webhooks here as a growing account's jobs are created and end (webhooks.ts); default none. */
  webhookUrl?: string;
  /** Told of each webhook posted: its event and the answer's status (0: failed). */
  onWebhook?: (event: string, status: number) => void;
  /** Keep entries in `log`; default true (a long-running CLI turns it off). */
  keepLog?: boolean;
}

/** A growing account; deleteShare and settleMs default to GROW_DEFAULTS (defaults.ts). */
export interface GrowOptions {
  /** New jobs a minute, above 0; they are born queued, kinds in the account's proportion. */
  readonly jobsPerMinute: number;
  /** Share of arrivals that each delete one older job (any age). */
  readonly deleteShare?: number;
  /** Longest time a job stays queued or processing before it is done or error, ms. */
  readonly settleMs?: number;
  /** When arrivals start, ms since the epoch: default the clock at start, never before the history's last job. */
  readonly startMs?: number;
}
