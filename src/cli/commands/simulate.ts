/**
 * `transcript-sync simulate`: serves the simulator of the listing service until SIGINT/SIGTERM,
 * for the demo, manual runs and benchmarks. Prints the URL and the env line to point a sync at it.
 */
import { z } from 'zod';
import { resolveSettings } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { type FaultKind, startSimulator } from '../../simulator/index.js';
import { type Command, stringFlag } from '../command.js';

/** Faults of --fault-rate: what a real service does under load (not the protocol-breaking ones). */
const CLI_FAULTS: readonly FaultKind[] = ['429', '500', '502', '503', '504', 'reset'];

const FLAGS = {
  port: { schema: z.coerce.number().int().min(0).max(65_535), default: '8787', help: 'port (0: a free one)' },
  host: { schema: z.string().min(1), default: '127.0.0.1', help: 'address to listen on' },
  jobs: {
    schema: z.coerce.number().int().min(0),
    default: '1000',
    help: 'jobs in the history, kinds alternating; with one seed, the jobs of --jobs N are the oldest N of any larger --jobs',
  },
  seed: { schema: z.coerce.number().int(), default: '7', help: 'seed of the generated data and faults' },
  key: {
    schema: z.string().min(1),
    default: 'sim-key',
    help: 'API key the simulator accepts (x-service-key)',
  },
  'limit-cap': { schema: z.coerce.number().int().min(1), default: '100', help: 'most items served per page' },
  latency: { schema: z.coerce.number().min(0), default: '0', help: 'ms added before every response' },
  utterances: { schema: z.coerce.number().int().min(1), default: '12', help: 'mean utterances per done job' },
  words: { schema: z.coerce.number().int().min(1), default: '8', help: 'mean words per utterance' },
  'offset-cap': {
    schema: z.coerce.number().int().min(0),
    default: '0',
    help: 'largest offset served, deeper ones refused with 400 (0: no cap)',
  },
  'record-bytes': {
    schema: z.coerce.number().int().min(0),
    default: '0',
    help: 'pad every record with this many bytes of text, like huge translated transcripts (0: none)',
  },
  'fault-rate': {
    schema: z.coerce.number().min(0).max(1),
    default: '0',
    help: `share of list requests (0..1) answered with a random fault (${CLI_FAULTS.join(', ')})`,
  },
} as const;

/** Flags that are not numbers: a date, or a rate `N/UNIT`. */
const TEXT_FLAGS = {
  start: { value: 'ISO', help: 'created_at of the oldest job (default 2025-01-01T00:00:00Z)' },
  rate: { value: 'N/UNIT', help: 'jobs the history was made at, per s, m, h or d (default 2000/d)' },
  end: {
    value: 'ISO|now',
    help: 'instead of --start: the history ends here, so its dates depend on --jobs (no default)',
  },
  grow: {
    value: 'N/UNIT',
    help:
      'a live account: new jobs at this rate (e.g. 60/m) from now on, born queued and done or failed ' +
      'within 5 minutes; jobs pending at start settle too; each arrival deletes an older job with ' +
      'probability 0.02 (default: no growth)',
  },
} as const;

const DEFAULT_START = '2025-01-01T00:00:00Z';
const DEFAULT_RATE = '2000/d';
const UNIT_PER_DAY = { s: 86_400, m: 1_440, h: 24, d: 1 } as const;
const DAY_MS = 86_400_000;

type FlagName = keyof typeof FLAGS;

function numberFlag(flags: Parameters<typeof stringFlag>[0], name: FlagName): number {
  const text = stringFlag(flags, name) ?? FLAGS[name].default;
  const parsed = FLAGS[name].schema.safeParse(text);
  if (!parsed.success || typeof parsed.data !== 'number') {
    throw new ConfigError(
      `--${name}`,
      `${parsed.error?.issues[0]?.message ?? 'must be a number'} (got "${text}")`,
    );
  }
  return parsed.data;
}

/** `N/UNIT` (unit s, m, h or d) as jobs a day. */
function perDay(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\/([smhd])$/.exec(text.trim());
  const count = Number(match?.[1]);
  if (!match || !(count > 0))
    throw new ConfigError(flag, `must be jobs per unit like 60/m, units s, m, h or d (got "${text}")`);
  return count * UNIT_PER_DAY[match[2] as keyof typeof UNIT_PER_DAY];
}

function instant(flag: string, text: string, nowMs: number): number {
  const ms = text === 'now' && flag === '--end' ? nowMs : Date.parse(text);
  if (Number.isNaN(ms))
    throw new ConfigError(
      flag,
      `must be an ISO 8601 date${flag === '--end' ? ' or now' : ''} (got "${text}")`,
    );
  return ms;
}

/** Where the history lies: from --start (prefix-stable) or back from --end, at --rate. */
function timelineOf(
  flags: Parameters<typeof stringFlag>[0],
  jobs: number,
  nowMs: number,
): { start: Date; jobsPerDay: number } {
  const jobsPerDay = perDay('--rate', stringFlag(flags, 'rate') ?? DEFAULT_RATE);
  const start = stringFlag(flags, 'start');
  const end = stringFlag(flags, 'end');
  if (start !== undefined && end !== undefined)
    throw new ConfigError('--end', 'give --start or --end, not both');
  const startMs =
    end === undefined
      ? instant('--start', start ?? DEFAULT_START, nowMs)
      : instant('--end', end, nowMs) - (jobs * DAY_MS) / jobsPerDay;
  return { start: new Date(startMs), jobsPerDay };
}

export const command: Command = {
  name: 'simulate',
  summary: 'serve a local simulator of the listing service',
  usage:
    'simulate [--port 8787] [--host 127.0.0.1] [--jobs 1000] [--start ISO | --end ISO|now] [--rate 2000/d] ' +
    '[--grow 60/m] [--seed 7] [--key sim-key] [--limit-cap 100] [--latency MS] [--utterances N] [--words N] ' +
    '[--offset-cap N] [--record-bytes N] [--fault-rate R]',
  description:
    'Serves a seeded account on GET /v2/transcription, /v2/pre-recorded and /v2/live like the real service\n' +
    '(x-service-key, filters, paging, error bodies). Records are built per request from (seed, job), so\n' +
    'a million jobs take tens of MB. The history starts at --start with --rate jobs a day: with one\n' +
    'seed, --jobs 1000 is the oldest 1000 jobs of --jobs 5000, byte for byte (--end places the history\n' +
    'to end there instead). --grow makes the account move: e.g. `simulate --jobs 10000 --end now\n' +
    '--grow 60/m`. Prints the URL and a TSYNC_BASE_URL=... TSYNC_API_KEY=... line on stdout, logs each\n' +
    'request at debug level on stderr, and runs until SIGINT or SIGTERM.',
  options: {
    ...Object.fromEntries(
      Object.entries(FLAGS).map(([name, spec]) => [
        name,
        {
          type: 'string',
          value: name === 'host' || name === 'key' ? 'TEXT' : 'N',
          help: `${spec.help} (default ${spec.default})`,
        },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(TEXT_FLAGS).map(([name, spec]) => [
        name,
        { type: 'string', value: spec.value, help: spec.help },
      ]),
    ),
  },
  settings: ['logLevel'],
  async run({ flags, env, stdout, stderr }) {
    const { logLevel } = resolveSettings(['logLevel'], [], flags, env);
    const jobs = numberFlag(flags, 'jobs');
    const faultRate = numberFlag(flags, 'fault-rate');
    const seed = numberFlag(flags, 'seed');
    const offsetCap = numberFlag(flags, 'offset-cap');
    const recordBytes = numberFlag(flags, 'record-bytes');
    const host = stringFlag(flags, 'host') ?? FLAGS.host.default;
    const apiKey = stringFlag(flags, 'key') ?? FLAGS.key.default;
    if (apiKey.trim() === '') throw new ConfigError('--key', 'is empty');
    const nowMs = Date.now();
    const timeline = timelineOf(flags, jobs, nowMs);
    const growText = stringFlag(flags, 'grow');
    const grow = growText === undefined ? undefined : perDay('--grow', growText) / 1_440;
    const logger = createLogger(logLevel, { component: 'simulator' }, { stream: stderr });
    const sim = await startSimulator({
      host,
      port: numberFlag(flags, 'port'),
      apiKey,
      seed,
      jobs,
      timeline,
      ...(grow === undefined ? {} : { grow: { jobsPerMinute: grow, startMs: nowMs } }),
      limitCap: numberFlag(flags, 'limit-cap'),
      latencyMs: numberFlag(flags, 'latency'),
      utterancesPerJob: numberFlag(flags, 'utterances'),
      wordsPerUtterance: numberFlag(flags, 'words'),
      ...(offsetCap > 0 ? { offsetCap } : {}),
      ...(recordBytes > 0 ? { recordPadding: { bytes: recordBytes } } : {}),
      ...(faultRate > 0 ? { faults: { rate: faultRate, kinds: CLI_FAULTS, seed } } : {}),
      keepLog: false,
      onRequest: (entry) => logger.debug(entry, 'request'),
    });
    const growing = growText === undefined ? '' : `, growing ${growText}`;
    stdout.write(`simulator listening on ${sim.url} (${jobs} jobs, seed ${seed}${growing})\n`);
    stdout.write(`TSYNC_BASE_URL=${sim.url} TSYNC_API_KEY=${sim.apiKey}\n`);
    try {
      await untilSignal();
    } finally {
      await sim.close();
    }
    logger.info('simulator stopped');
    return 0;
  },
};

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
