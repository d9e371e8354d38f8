/**
 * The long soak (`npm run soak`): storm after storm until the time is up, each on a fresh simulator
 * and database with its own seed, alternating one-shot `sync` storms and `worker` storms (see
 * bench/storm/storm.ts and worker-storm.ts). After each storm the database must equal the
 * simulator; the first storm that does not stops the soak with its seed and exit code 1.
 *
 *   npm run soak -- [--minutes 10] [--seed N] [--variant both|cli|worker] [--rounds 30]
 *
 * Replay one storm with `--seed N --variant cli|worker --minutes 0` (one storm whatever the time).
 * Needs redis-server on PATH for the worker variant, unless REDIS_URL is set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { type Simulator, startSimulator } from '../src/simulator/index.js';
import { runSyncStorm, type SettleStep, settle } from './storm/storm.js';
import { runWorkerStorm, settleWorker } from './storm/worker-storm.js';

type Variant = 'cli' | 'worker';

interface SoakOptions {
  readonly minutes: number;
  readonly seed: number;
  readonly variants: readonly Variant[];
  readonly rounds: number;
}

const HELP = `Usage: npm run soak -- [--minutes 10] [--seed N] [--variant both|cli|worker] [--rounds 30]

Storm after storm until --minutes are up, each on a fresh simulator and database with its own
seed, alternating one-shot sync storms and worker storms; after each the database must equal the
simulator. The first storm that does not stops the soak with its seed and exit code 1. Replay one
storm with --seed N --variant cli|worker --minutes 0. The worker variant needs redis-server on
PATH, unless REDIS_URL is set.
`;

function parseOptions(argv: readonly string[]): SoakOptions | undefined {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return undefined;
  }
  const { values } = parseArgs({
    args: [...argv],
    options: {
      minutes: { type: 'string', default: '10' },
      seed: { type: 'string' },
      variant: { type: 'string', default: 'both' },
      rounds: { type: 'string', default: '30' },
    },
    strict: true,
  });
  const minutes = Number(values.minutes);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000_000) : Number(values.seed);
  const rounds = Number(values.rounds);
  const variants: Variant[] = values.variant === 'both' ? ['cli', 'worker'] : [values.variant as Variant];
  if (
    !(minutes >= 0) ||
    !Number.isSafeInteger(seed) ||
    !(rounds >= 1) ||
    !variants.every((v) => v === 'cli' || v === 'worker')
  ) {
    throw new Error('usage: soak [--minutes 10] [--seed N] [--variant both|cli|worker] [--rounds 30]');
  }
  return { minutes, seed, variants, rounds };
}

function startStormSimulator(seed: number): Promise<Simulator> {
  return startSimulator({
    seed,
    preRecorded: 300,
    live: 200,
    utterancesPerJob: 6,
    wordsPerUtterance: 6,
    from: new Date(Date.now() - 5 * 86_400_000),
    to: new Date(Date.now() - 60_000),
    latencyMs: 5,
  });
}

const log = (line: string): void => {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
};

/** Problems of the settle steps; empty when the storm converged. */
function problems(steps: Record<string, SettleStep>): string[] {
  return Object.entries(steps).flatMap(([name, step]) => [
    ...(step.code === 0 ? [] : [`${name} run exited ${step.code}: ${step.stderr.slice(-1_500)}`]),
    ...step.differences.map((d) => `${name}: ${d}`),
  ]);
}

async function cliStorm(seed: number, rounds: number, dir: string): Promise<string[]> {
  const sim = await startStormSimulator(seed);
  try {
    const db = join(dir, `cli-${seed}.duckdb`);
    const storm = await runSyncStorm({ sim, db, seed, rounds, killAfterRequests: [0, 80], log });
    log(`changes ${JSON.stringify(storm.chaos.counts)}; ${storm.killed} killed, ${storm.finished} finished`);
    const { incremental, full } = await settle(sim, db, storm.chaos.deleted);
    return [...storm.bad, ...problems({ incremental, full })];
  } finally {
    await sim.close();
  }
}

async function workerStorm(seed: number, rounds: number, dir: string, redisUrl: string): Promise<string[]> {
  const sim = await startStormSimulator(seed);
  const prefix = `tsync-soak:${seed}`;
  try {
    const options = {
      sim,
      db: join(dir, `worker-${seed}.duckdb`),
      seed,
      rounds,
      redisUrl,
      prefix,
      killAfterRequests: [5, 150] as const,
      log,
    };
    const storm = await runWorkerStorm(options);
    log(`changes ${JSON.stringify(storm.chaos.counts)}; ${storm.killed} killed, ${storm.stopped} stopped`);
    const { incremental, full, stop } = await settleWorker(options, storm.chaos.deleted);
    return [...storm.bad, ...problems({ incremental, full, stop })];
  } finally {
    await sim.close();
    await deleteKeys(redisUrl, prefix);
  }
}

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** REDIS_URL, or a throwaway redis-server on a free port (stopped by the returned function). */
async function redisForSoak(dir: string): Promise<{ url: string; stop: () => void }> {
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv) return { url: fromEnv, stop: () => {} };
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {}); // not up yet: the loop tries again
    try {
      await redis.connect();
      await redis.ping();
      break;
    } catch (error) {
      if (tries > 100)
        throw new Error(`redis-server did not start (${String(error)}); install it or set REDIS_URL`);
      await sleep(100);
    } finally {
      redis.disconnect();
    }
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options === undefined) return 0;
  const dir = mkdtempSync(join(tmpdir(), 'tsync-soak-'));
  const redis = options.variants.includes('worker') ? await redisForSoak(dir) : undefined;
  const until = Date.now() + options.minutes * 60_000;
  let storms = 0;
  try {
    for (let seed = options.seed; storms === 0 || Date.now() < until; seed++) {
      const variant = options.variants[storms % options.variants.length] as Variant;
      log(`storm ${storms + 1}: ${variant}, seed ${seed}`);
      const found =
        variant === 'cli'
          ? await cliStorm(seed, options.rounds, dir)
          : await workerStorm(seed, options.rounds, dir, redis?.url ?? '');
      storms += 1;
      if (found.length > 0) {
        log(
          `FAILED: the ${variant} storm of seed ${seed} did not converge (replay: npm run soak -- --seed ${seed} --variant ${variant} --minutes 0)`,
        );
        for (const line of found) log(`  ${line}`);
        return 1;
      }
      log(`storm ${storms} converged: the database equals the service`);
    }
    log(`soak passed: ${storms} storms converged`);
    return 0;
  } finally {
    redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
