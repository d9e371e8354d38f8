/** What a simulator is started with (server.ts startSimulator). */
import type { GenerateOptions } from './records/generate.js';
import type { FaultRule, JobRecord, RequestLogEntry } from './types.js';

export interface SimulatorOptions extends GenerateOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Default 'sim-key'. */
  apiKey?: string;
  /** Most items served per page, default 100. */
  limitCap?: number;
  /** Largest offset served; a deeper one is refused with 400 (a service that caps offsets). Default none. */
  offsetCap?: number;
  /** Added before every response, ms, default 0. */
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

export interface GrowOptions {
  /** New jobs a minute, above 0; they are born queued, kinds in the account's proportion. */
  readonly jobsPerMinute: number;
  /** Share of arrivals that each delete one older job (any age), default 0.02. */
  readonly deleteShare?: number;
  /** Longest time a job stays queued or processing before it is done or error, ms; default 300,000. */
  readonly settleMs?: number;
  /** When arrivals start, ms since the epoch: default the clock at start, never before the history's last job. */
  readonly startMs?: number;
}
