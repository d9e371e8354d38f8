/**
 * The benchmark at a tiny scale: it runs end to end and prints every figure, ratio and target, and
 * writes them as JSON. No timing is asserted (speed is for `npm run bench`). Runs the compiled
 * bench (dist/bench/, built by `npm test` or `npm run build`), as `npm run bench` does. One run,
 * started before the tests, which read its output: every phase, scale too, with `--smoke` (each
 * phase from the fewest runs that produce its figures) and `--in-process` (no child per measured
 * task, but for one of each task kind, whose JSON line carries the figures), on two of the account
 * shapes: the first's tasks in the bench's process, the last's each in a child. The shapes'
 * datasets, all four, are test/unit/simulator/bench-shapes.test.ts's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_HELP, PHASES, parseBenchArgs } from '../../bench/args.js';
import { cutNdjson } from '../../bench/ndjson-batches.js';
import { ConfigError } from '../../src/errors.js';
import { projectRoot } from '../../src/util/paths.js';
import { fileTempDir } from '../helpers/tmp.js';

const RUN = join(projectRoot(), 'dist', 'bench', 'run.js');

interface BenchRun {
  /** The exit code, or the signal that ended the run. */
  readonly code: number | NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

const started = new Set<ChildProcess>();

function bench(args: readonly string[]): Promise<BenchRun> {
  const child = spawn(process.execPath, [RUN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (code, signal) => {
      started.delete(child);
      resolve({ code: code ?? signal, stdout, stderr });
    }),
  );
}

/** The shapes the run measures: the two smallest, the first run in-process, the last in children. */
const SHAPES = ['L2k', 'S60'] as const;

const SCALE_STEPS = [
  'back-fill',
  'idle incremental',
  'one new job',
  'sync --full',
  'verify',
  'verify --hashes',
  'first --publish',
  'export',
  'report billing',
  'query, all words',
  'status',
  'compact',
];

const FIGURES = [
  ...SHAPES.flatMap((shape) =>
    [
      'dataset',
      'backfill wall time',
      'backfill peak RSS',
      'backfill CPU time',
      'floor A (DuckDB ingest)',
      'floor A bounded',
      'floor B (transfer)',
      'ratio backfill / max(floor A, floor B)',
      'ratio backfill / max(floor A bounded, floor B)',
    ].map((label) => `${shape}: ${label}`),
  ),
  'naive loader',
  'naive words/s',
  'idle run wall time',
  'idle run requests',
  'peak RSS 1x',
  'peak RSS 10x jobs',
  'latency-bound 1-way',
  'latency-bound 2-way',
  'latency-bound 4-way',
  'ratio naive / backfill',
  'ratio 4-way / 1-way (speed-up)',
  'bench records, 512 MB budget, backfill',
  'bench records, 256 MB budget, backfill',
  'hour-long records, 512 MB budget, incremental',
  'hour-long records, 256 MB budget, backfill',
  ...SHAPES.flatMap((shape) => [`floor search ${shape} 1`, `floor search ${shape}: fastest held`]),
];

const TARGETS = [
  ...SHAPES.flatMap((shape) =>
    ['backfill vs floors (A bounded)', 'backfill peak RSS', 'backfill V8 heap'].map(
      (name) => `${shape}: ${name}`,
    ),
  ),
  'naive vs backfill',
  'idle run',
  'RSS at 10x jobs',
  '4-way vs 1-way',
  'peak RSS at the default budget, bench records',
  'peak RSS at the default budget, hour-long records',
  ...SHAPES.map((shape) => `${shape}: floor A bounded holds the budget`),
];

/** A target's line in the printout, met or missed. */
const targetLine = (name: string) => new RegExp(`(met |MISS)  ${name.replace(/[()/,]/g, '\\$&')}`);

function figuresJson(out: string): Record<string, unknown> {
  const [file] = readdirSync(out).filter((name) => name.endsWith('.json'));
  return JSON.parse(readFileSync(join(out, file ?? 'missing'), 'utf8')) as Record<string, unknown>;
}

describe('npm run bench', () => {
  const out = fileTempDir('tsync-bench-smoke-');
  /** Where the run writes its JSON figures. */
  const inProcessOut = join(out.dir, 'in-process');
  /**
   * Every phase, the scale phase too, on the shapes of SHAPES, the tasks and simulators in the
   * bench's own process but for the last shape's tasks and the naive loader, each a child of its
   * own (`--smoke`).
   */
  let inProcess: Promise<BenchRun>;

  beforeAll(() => {
    if (!existsSync(RUN)) throw new Error(`${RUN} is missing: run \`npm run build\` first`);
    // Started before the tests, not awaited here: each test waits for the run it reads.
    inProcess = bench([
      '--smoke',
      '--scale',
      '0.001',
      '--only',
      PHASES.join(','),
      '--shapes',
      SHAPES.join(','),
      '--scale-jobs',
      '2',
      '--latency-ms',
      '1',
      '--out',
      inProcessOut,
      '--in-process',
    ]);
  });

  afterAll(() => {
    for (const child of started) child.kill();
    out.remove();
  });

  it('prints every figure, ratio and target of a tiny run and writes them as JSON', {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr } = await inProcess;
    expect(code, stderr).toBe(0);
    for (const label of FIGURES) expect(stdout).toContain(`  ${label}  `);
    for (const name of TARGETS) expect(stdout).toMatch(targetLine(name));
    expect(stdout).toContain('| figure | value |');
    expect(stdout).toContain('| account shape |');
    const figures = figuresJson(inProcessOut);
    for (const key of ['machine', 'shapes', 'naive', 'idle', 'memory', 'latency', 'budget', 'floorSearch'])
      expect(figures).toHaveProperty(key);
    // Each shape's backfill loaded its own account, every job of it; the shapes' jobs differ in size
    // (L2k's ~600 words a job, S60's ~60).
    const shapes = figures['shapes'] as {
      name: string;
      dataset: { jobs: number; words: number };
      backfill: { jobs: number };
      floorA: { transactions: number };
      floorABounded: { transactions: number };
      floorB: object;
      roundRatios: number[];
    }[];
    expect(shapes.map((shape) => shape.name)).toEqual([...SHAPES]);
    expect(shapes.map((shape) => shape.dataset.jobs)).toEqual([4, 10]);
    for (const shape of shapes) {
      expect(shape.backfill.jobs).toBe(shape.dataset.jobs);
      expect(shape.floorA.transactions).toBe(1);
      expect(shape.floorABounded.transactions).toBeGreaterThanOrEqual(1);
      expect(shape).toHaveProperty('floorB');
      expect(shape.roundRatios).toHaveLength(1);
    }
    // The floor search tried a setting on every shape and names the fastest that held.
    const search = figures['floorSearch'] as {
      shapes: { name: string; trials: { outcome: string }[]; best?: { batchJobs: number } }[];
    };
    expect(search.shapes.map((shape) => shape.name)).toEqual([...SHAPES]);
    for (const shape of search.shapes) {
      expect(shape.trials.map((trial) => trial.outcome)).toEqual(['held']);
      expect(shape.best?.batchJobs).toBe(2);
    }
    const wordsPerJob = shapes.map((shape) => shape.dataset.words / shape.dataset.jobs);
    expect(wordsPerJob[0]).toBeGreaterThan(300);
    expect(wordsPerJob[0]).toBeLessThan(900);
    expect(wordsPerJob[1]).toBeGreaterThan(20);
    expect(wordsPerJob[1]).toBeLessThan(120);
  });

  it('runs the incremental phase at two histories, with bytes written and its targets', {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr } = await inProcess;
    expect(code, stderr).toBe(0);
    for (const history of [4, 10]) {
      for (const step of [
        'file',
        'idle',
        'one new job',
        '1% changed',
        'reconcile, recent window',
        'reconcile, whole history',
      ])
        expect(stdout).toContain(`  incremental H=${history}: ${step}  `);
    }
    expect(stdout).toMatch(/MB written/);
    for (const name of ['one new job writes', 'one new job, larger history', 'file per JSON byte'])
      expect(stdout).toMatch(targetLine(name));
    // The whole-history reconcile found the job deleted upstream; the recent window did not reach it.
    expect(stdout).toMatch(/H=10: reconcile, whole history +.* 1 deleted/);
  });

  it('measures each task in a child process of its own: every task kind, its figures read back', {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr } = await inProcess;
    expect(code, stderr).toBe(0);
    for (const label of [
      'S60: backfill wall time',
      'S60: backfill peak RSS',
      'S60: floor A (DuckDB ingest)',
      'S60: floor A bounded',
      'S60: floor B (transfer)',
      'naive loader',
    ])
      expect(stdout).toContain(`  ${label}  `);
    const figures = figuresJson(inProcessOut) as {
      shapes?: {
        name: string;
        backfill?: { peakRssMb: number; peakHeapMb: number; cpuMs: number; simCpuMs: number };
        floorA?: { peakRssMb: number };
        floorABounded?: { peakRssMb: number };
        floorB?: { peakRssMb: number; simCpuMs: number };
      }[];
    };
    // The last shape's: each task a child of its own, its figures read back from its JSON line; the
    // simulator's CPU from the process that served the pages.
    const shape = figures.shapes?.at(-1);
    expect(shape?.name).toBe('S60');
    for (const rss of [
      shape?.backfill?.peakRssMb,
      shape?.floorA?.peakRssMb,
      shape?.floorABounded?.peakRssMb,
      shape?.floorB?.peakRssMb,
    ])
      expect(rss).toBeGreaterThan(10);
    expect(shape?.backfill?.peakHeapMb).toBeGreaterThan(1);
    expect(shape?.backfill?.cpuMs).toBeGreaterThan(0);
    expect(shape?.backfill?.simCpuMs).toBeGreaterThan(0);
    expect(shape?.floorB?.simCpuMs).toBeGreaterThan(0);
    expect(figures).toHaveProperty('naive');
  });

  it('runs the scale phase: every command of the CLI, the first in a process of its own, measured', {
    timeout: 300_000,
  }, async () => {
    const { code, stdout, stderr } = await inProcess;
    expect(code, stderr).toBe(0);
    for (const step of SCALE_STEPS) expect(stdout).toContain(`  scale 2: ${step}  `);
    expect(stdout).toMatch(/met {3}scale: every command succeeded/);
    for (const name of [
      'scale: peak RSS of every step',
      'scale: idle incremental',
      'scale: back-fill bytes written',
      'scale: one new job writes',
    ])
      expect(stdout).toMatch(targetLine(name));
    expect(stdout).toContain('| step | jobs | wall time |');
    const figures = figuresJson(inProcessOut) as {
      scale: {
        runs: {
          jobs: number;
          steps: {
            name: string;
            exit: number | string;
            peakRssMb?: number;
            cpuMs?: number;
            writeBytes?: number;
            fileBytes: number;
            outputBytes?: number;
            changed?: number;
          }[];
        }[];
      };
    };
    const [run] = figures.scale.runs;
    expect(run?.jobs).toBe(2);
    const steps = new Map(run?.steps.map((step) => [step.name, step]));
    expect([...steps.keys()]).toEqual(SCALE_STEPS);
    // The back-fill's figures are the CLI process's own, reported by it as it exited; with --smoke
    // the later commands run in the bench's process and report its figures.
    for (const step of steps.values()) {
      expect(step.exit, step.name).toBe(0);
      expect(step.peakRssMb, step.name).toBeGreaterThan(10);
      expect(step.cpuMs, step.name).toBeGreaterThan(0);
      expect(step.writeBytes, step.name).toBeGreaterThanOrEqual(0);
      expect(step.fileBytes, step.name).toBeGreaterThan(0);
    }
    expect(steps.get('back-fill')?.changed).toBe(2);
    expect(steps.get('back-fill')?.writeBytes).toBeGreaterThan(0);
    expect(steps.get('idle incremental')?.changed).toBe(0);
    expect(steps.get('one new job')?.changed).toBe(1);
    // The Parquet files of the publish and the export, measured before their folders are deleted.
    expect(steps.get('first --publish')?.outputBytes).toBeGreaterThan(0);
    expect(steps.get('export')?.outputBytes).toBeGreaterThan(0);
  });

  it('stops a floor run as soon as its peak RSS passes the limit, and cuts records by jobs', async () => {
    const ndjson = join(out.dir, 'five.ndjson');
    writeFileSync(
      ndjson,
      ['{"id":"1"}', '{"id":"2"}', '{"id":"3"}', '{"id":"4"}', '{"id":"5"}\n'].join('\n'),
    );
    const files = cutNdjson(ndjson, join(out.dir, 'cut'), 2);
    expect(files.map((file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length)).toEqual([
      2, 2, 1,
    ]);
    expect(files.map((file) => readFileSync(file, 'utf8')).join('')).toBe(readFileSync(ndjson, 'utf8'));
    // Node and DuckDB alone take more than 8 MiB: the child is stopped with the peak it had
    // reached. The compiled bench's runner, whose child is dist/bench/child.js.
    const { runTaskWithin } = (await import(
      join(projectRoot(), 'dist', 'bench', 'child-output.js')
    )) as typeof import('../../bench/child-output.js');
    const bounds = { threads: 1, memoryLimitMb: 100, batchJobs: 2 };
    const run = await runTaskWithin(
      'floor-a-bounded',
      { db: join(out.dir, 'stopped.duckdb'), bounds, batches: [] },
      8,
    );
    expect(run).toHaveProperty('overMb');
    expect((run as { overMb: number }).overMb).toBeGreaterThan(8);
  });

  it('documents a million-job scale run in its help', () => {
    expect(parseBenchArgs(['--help'])).toBeUndefined();
    expect(BENCH_HELP).toContain('--only scale --scale-jobs 1000000');
    // The smoke mode these runs use is documented, and off unless asked for.
    expect(BENCH_HELP).toContain('--smoke');
    expect(parseBenchArgs([])?.smoke).toBe(false);
    expect(parseBenchArgs(['--smoke'])?.smoke).toBe(true);
  });

  it('refuses an unknown phase, an unknown shape and an odd account size with a usage error (exit 2)', async () => {
    // The bench's own process turns the usage error into exit 2 and one line naming the flag...
    const { code, stderr } = await bench(['--only', 'everything']);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('--only');
    // ...as it does for each flag's error, read here without a process each.
    for (const [flag, value] of [
      ['--shapes', 'S6000'],
      ['--scale-jobs', '201'],
    ] as const) {
      const refused = (() => {
        try {
          parseBenchArgs([flag, value]);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as ConfigError).exitCode).toBe(2);
      expect((refused as ConfigError).toLine()).toContain(flag);
    }
  });
});
