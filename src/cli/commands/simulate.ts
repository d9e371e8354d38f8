/** `transcript-sync simulate`: serves the simulator of the listing service until SIGINT/SIGTERM. */
import { resolveAll } from '../../config/resolve.js';
import { namesOf } from '../../config/settings.js';
import { SIMULATED_FAULTS, SIMULATOR_SETTINGS } from '../../config/simulator-settings.js';
import { ConfigError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { startSimulator } from '../../simulator/index.js';
import { listenError } from '../../util/listen-error.js';
import type { Command } from '../command.js';

const DAY_MS = 86_400_000;

/** simulate's flags, in the order of its --help: the simulator's part of the table, then --log-level. */
const SETTINGS = [...namesOf(SIMULATOR_SETTINGS), 'logLevel'] as const;

export const command: Command = {
  name: 'simulate',
  usage:
    'simulate [--port 8787] [--host 127.0.0.1] [--jobs 1000] [--start ISO | --end ISO|now] [--rate 2000/d] ' +
    '[--grow 60/m] [--webhook-url URL] [--retention 365d] [--seed 7] [--key sim-key] [--limit-cap 100] [--latency MS] [--utterances N] [--words N] ' +
    '[--offset-cap N] [--record-bytes N] [--fault-rate R]',
  description:
    'Serves a seeded account on GET /v2/transcription, /v2/pre-recorded and /v2/live like the real service\n' +
    '(x-service-key, filters, paging, error bodies), and DELETE /v2/pre-recorded/{id} and /v2/live/{id}.\n' +
    '--retention lists no job older than it, as the service forgets jobs past an account retention.\n' +
    'Records are built per request from (seed, job), so a million jobs take tens of MB. The history\n' +
    'starts at --start with --rate jobs a day: with one seed, --jobs 1000 is the oldest 1000 jobs of\n' +
    '--jobs 5000, byte for byte (--end places the history to end there instead). --grow makes the\n' +
    'account move: e.g. `simulate --jobs 10000 --end now --grow 60/m`. --webhook-url posts the\n' +
    'service\'s webhooks ({"event": ..., "payload": {"id": ...}}) as jobs are created and end, so a\n' +
    'worker with --webhook-port syncs each change as it happens. Prints the URL and a\n' +
    'TSYNC_BASE_URL=... TSYNC_API_KEY=... line on stdout, logs each request at debug level on stderr,\n' +
    'and runs until SIGINT or SIGTERM.',
  settings: SETTINGS,
  async run({ flags, env, stdout, stderr }) {
    const settings = resolveAll(SETTINGS, flags, env);
    const { simJobs: jobs, simSeed: seed, simRate: jobsPerDay, simGrow: grow } = settings;
    const { simOffsetCap: offsetCap, simRecordBytes: recordBytes, simFaultRate: faultRate } = settings;
    if (settings.simEnd !== undefined && flags['start'] !== undefined)
      throw new ConfigError('--end', 'give --start or --end, not both');
    const startMs =
      settings.simEnd === undefined ? settings.simStart : settings.simEnd - (jobs * DAY_MS) / jobsPerDay;
    const logger = createLogger(settings.logLevel, { component: 'simulator' }, { stream: stderr });
    const sim = await startSimulator({
      host: settings.simHost,
      port: settings.simPort,
      apiKey: settings.simKey,
      seed,
      jobs,
      timeline: { start: new Date(startMs), jobsPerDay },
      ...(grow === undefined ? {} : { grow: { jobsPerMinute: grow / 1_440, startMs: Date.now() } }),
      retentionMs: settings.simRetention,
      limitCap: settings.simLimitCap,
      latencyMs: settings.simLatency,
      utterancesPerJob: settings.simUtterances,
      wordsPerUtterance: settings.simWords,
      ...(offsetCap > 0 ? { offsetCap } : {}),
      ...(recordBytes > 0 ? { recordPadding: { bytes: recordBytes } } : {}),
      ...(faultRate > 0 ? { faults: { rate: faultRate, kinds: SIMULATED_FAULTS, seed } } : {}),
      keepLog: false,
      onRequest: (entry) => logger.debug(entry, 'request'),
      webhookUrl: settings.simWebhookUrl,
      // Never the URL: its path holds the receiver's secret.
      onWebhook: (event, status) => logger.debug({ event, status }, 'webhook'),
    }).catch((error: unknown) => {
      const at = { host: settings.simHost, port: settings.simPort, portFlag: '--port', hostFlag: '--host' };
      throw listenError(error, { ...at, holder: 'another simulator?' });
    });
    // Listening before the URL is printed: whoever reads it may stop the simulator at once.
    const { listenForShutdown } = await import('../../worker/shutdown.js');
    const signals = listenForShutdown();
    const growing = grow === undefined ? '' : `, growing ${flags['grow']}`;
    stdout.write(`simulator listening on ${sim.url} (${jobs} jobs, seed ${seed}${growing})\n`);
    stdout.write(`TSYNC_BASE_URL=${sim.url} TSYNC_API_KEY=${sim.apiKey}\n`);
    try {
      await signals.first;
    } finally {
      signals.dispose();
      await sim.close();
    }
    logger.info('simulator stopped');
    return 0;
  },
};
