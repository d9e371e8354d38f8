/**
 * The flags of `simulate` (no environment variables), in the order of its --help. Where the
 * simulator has a default of its own (src/simulator/defaults.ts), the flag's default is that one.
 */
import { z } from 'zod';
import { GENERATE_DEFAULTS, GROW_DEFAULTS, SERVER_DEFAULTS } from '../simulator/defaults.js';
import type { Setting } from './setting.js';
import {
  duration,
  intBetween,
  numberBetween,
  parseDateText,
  postUrl,
  refuse,
  text,
  wholeFrom,
} from './values.js';

/** Faults of --fault-rate: what a real service does under load (not the protocol-breaking ones). */
export const SIMULATED_FAULTS = ['429', '500', '502', '503', '504', 'reset'] as const;

const UNIT_PER_DAY = { s: 86_400, m: 1_440, h: 24, d: 1 } as const;

/** `N/UNIT` (unit s, m, h or d) as jobs a day. */
const jobsPerDay = z.string().transform((value, ctx) => {
  const match = /^(\d+(?:\.\d+)?)\/([smhd])$/.exec(value.trim());
  const count = Number(match?.[1]);
  if (!match || !(count > 0)) return refuse(ctx, 'must be jobs per unit like 60/m, units s, m, h or d');
  return count * UNIT_PER_DAY[match[2] as keyof typeof UNIT_PER_DAY];
});

/** A date or instant (values.ts's parseDateText) as ms since the epoch; `now` too where allowed. */
const instantMs = (options: { now?: boolean } = {}) =>
  z.string().transform((value, ctx) => {
    if (options.now && value === 'now') return Date.now();
    const parsed = parseDateText(value);
    if (parsed.ok) return parsed.date.getTime();
    // A calendar's refusal says why; text that is no date at all may also be `now` where allowed.
    return refuse(
      ctx,
      options.now && !parsed.dated
        ? `"${value}" is neither an ISO 8601 date or instant nor now`
        : parsed.problem,
    );
  });

export const SIMULATOR_SETTINGS = {
  simPort: {
    flag: 'port',
    value: 'N',
    schema: intBetween(0, 65_535),
    default: '8787',
    help: 'port (0: a free one)',
  },
  simHost: {
    flag: 'host',
    value: 'TEXT',
    schema: text,
    default: SERVER_DEFAULTS.host,
    help: 'address to listen on',
  },
  simJobs: {
    flag: 'jobs',
    value: 'N',
    schema: wholeFrom(0),
    default: '1000',
    help: 'jobs in the history, kinds alternating; with one seed, the jobs of --jobs N are the oldest N of any larger --jobs',
  },
  simStart: {
    flag: 'start',
    value: 'ISO',
    schema: instantMs(),
    default: '2025-01-01T00:00:00Z',
    help: 'created_at of the oldest job',
  },
  simEnd: {
    flag: 'end',
    value: 'ISO|now',
    schema: instantMs({ now: true }),
    help: 'instead of --start: the history ends here, so its dates depend on --jobs (no default)',
  },
  simRate: {
    flag: 'rate',
    value: 'N/UNIT',
    schema: jobsPerDay,
    default: '2000/d',
    help: 'jobs the history was made at, per s, m, h or d',
  },
  simGrow: {
    flag: 'grow',
    value: 'N/UNIT',
    schema: jobsPerDay,
    help:
      'a live account: new jobs at this rate (e.g. 60/m) from now on, born queued and done or failed ' +
      `within ${GROW_DEFAULTS.settleMs / 60_000} minutes; jobs pending at start settle too; each arrival ` +
      `deletes an older job with probability ${GROW_DEFAULTS.deleteShare} (default: no growth)`,
  },
  simWebhookUrl: {
    flag: 'webhook-url',
    value: 'URL',
    schema: postUrl,
    help: "POST the service's webhooks here as jobs are created and end, e.g. a worker's http://127.0.0.1:8790/webhook/<secret> (with --grow they happen over time; default: none)",
  },
  simRetention: {
    flag: 'retention',
    value: 'DURATION',
    schema: duration,
    help: "the account's data retention, e.g. 365d: jobs created longer ago are no longer listed, as of each request (default: kept forever)",
  },
  simSeed: {
    flag: 'seed',
    value: 'N',
    schema: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number'),
    default: String(GENERATE_DEFAULTS.seed),
    help: 'seed of the generated data and faults',
  },
  simKey: {
    flag: 'key',
    value: 'TEXT',
    schema: text,
    default: SERVER_DEFAULTS.apiKey,
    help: 'API key the simulator accepts (x-service-key)',
  },
  simLimitCap: {
    flag: 'limit-cap',
    value: 'N',
    schema: wholeFrom(1),
    default: String(SERVER_DEFAULTS.limitCap),
    help: 'most items served per page',
  },
  simLatency: {
    flag: 'latency',
    value: 'N',
    // A Node timer holds up to 24 days.
    schema: numberBetween(0, 24 * 86_400_000),
    default: String(SERVER_DEFAULTS.latencyMs),
    help: 'ms added before every response (at most 24 days)',
  },
  simUtterances: {
    flag: 'utterances',
    value: 'N',
    schema: wholeFrom(1),
    default: String(GENERATE_DEFAULTS.utterancesPerJob),
    help: 'mean utterances per done job',
  },
  simWords: {
    flag: 'words',
    value: 'N',
    schema: wholeFrom(1),
    default: String(GENERATE_DEFAULTS.wordsPerUtterance),
    help: 'mean words per utterance',
  },
  simOffsetCap: {
    flag: 'offset-cap',
    value: 'N',
    schema: wholeFrom(0),
    default: '0',
    help: 'largest offset served, deeper ones refused with 400 (0: no cap)',
  },
  simRecordBytes: {
    flag: 'record-bytes',
    value: 'N',
    // A record is one JavaScript string, which V8 keeps below 2^29 characters.
    schema: intBetween(0, 500_000_000),
    default: '0',
    help: 'pad every record with this many bytes of text, like huge translated transcripts (0: none; at most 500000000)',
  },
  simFaultRate: {
    flag: 'fault-rate',
    value: 'N',
    schema: numberBetween(0, 1),
    default: '0',
    help: `share of list requests (0..1) answered with a random fault (${SIMULATED_FAULTS.join(', ')})`,
  },
} as const satisfies Record<string, Setting>;
