/**
 * `transcript-sync simulate`: serves the simulator of the listing service until SIGINT/SIGTERM,
 * for the demo, manual runs and benchmarks. Prints the URL and the env line to point a sync at it.
 */
import { z } from 'zod';
import { resolveSettings } from '../config.js';
import { ConfigError } from '../errors.js';
import { createLogger } from '../log.js';
import { type FaultKind, startSimulator } from '../simulator/index.js';
import { type Command, stringFlag } from './command.js';

/** Faults of --fault-rate: what a real service does under load (not the protocol-breaking ones). */
const CLI_FAULTS: readonly FaultKind[] = ['429', '500', '502', '503', '504', 'reset'];

const FLAGS = {
  port: { schema: z.coerce.number().int().min(0).max(65_535), default: '8787', help: 'port (0: a free one)' },
  host: { schema: z.string().min(1), default: '127.0.0.1', help: 'address to listen on' },
  jobs: {
    schema: z.coerce.number().int().min(0),
    default: '1000',
    help: 'jobs to generate, split evenly between kinds',
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

export const command: Command = {
  name: 'simulate',
  summary: 'serve a local simulator of the listing service',
  usage:
    'simulate [--port 8787] [--host 127.0.0.1] [--jobs 1000] [--seed 7] [--key sim-key] [--limit-cap 100] ' +
    '[--latency MS] [--utterances N] [--words N] [--offset-cap N] [--record-bytes N] [--fault-rate R]',
  description:
    'Generates seeded job records and serves GET /v2/transcription, /v2/pre-recorded and /v2/live like the\n' +
    'real service (x-service-key, filters, paging, error bodies). Prints the URL and a TSYNC_BASE_URL=...\n' +
    'TSYNC_API_KEY=... line on stdout, logs each request at debug level on stderr, and runs until\n' +
    'SIGINT or SIGTERM.',
  options: Object.fromEntries(
    Object.entries(FLAGS).map(([name, spec]) => [
      name,
      {
        type: 'string',
        value: name === 'host' || name === 'key' ? 'TEXT' : 'N',
        help: `${spec.help} (default ${spec.default})`,
      },
    ]),
  ),
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
    const logger = createLogger(logLevel, { component: 'simulator' }, { stream: stderr });
    const sim = await startSimulator({
      host,
      port: numberFlag(flags, 'port'),
      apiKey,
      seed,
      preRecorded: Math.ceil(jobs / 2),
      live: Math.floor(jobs / 2),
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
    stdout.write(`simulator listening on ${sim.url} (${jobs} jobs, seed ${seed})\n`);
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
