/**
 * The bench's flags. Defaults are the full sizes; `--scale 0.1` shrinks every dataset for a quick
 * run (the smoke test uses a tiny scale). A bad flag is a ConfigError (exit 2).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '../src/errors.js';
import { projectRoot } from '../src/util/paths.js';
import { FLOOR_MEMORY_MB, FLOOR_THREADS, type FloorGrid, SHAPES, type ShapeName } from './datasets.js';

export const PHASES = [
  'floor-b',
  'backfill',
  'idle',
  'floor-a',
  'naive',
  'memory',
  'latency',
  'budget',
  'incremental',
  'scale',
  'floor-search',
] as const;
export type Phase = (typeof PHASES)[number];

/**
 * Phases run when --only is not given: all but `scale`, which takes an hour at its default sizes,
 * and `floor-search`, whose findings bench/datasets.ts keeps.
 */
const DEFAULT_PHASES = PHASES.filter((phase) => phase !== 'scale' && phase !== 'floor-search');

/** Accounts of the scale phase, jobs (`--scale-jobs`). */
export const SCALE_JOBS = [10_000, 100_000] as const;

export interface BenchOptions {
  /** Multiplies every job count but the scale phase's; 1 = the full sizes. */
  readonly scale: number;
  /** Runs of backfill, floor A and floor B; the median is reported. */
  readonly repeat: number;
  readonly phases: ReadonlySet<Phase>;
  /** The account shapes of the backfill and its floors, in the order of SHAPES. */
  readonly shapes: readonly ShapeName[];
  /** Account sizes of the scale phase, jobs, ascending. */
  readonly scaleJobs: readonly number[];
  /** Where the JSON figures (and CPU profiles) go. */
  readonly outDir: string;
  /** Profile the backfill, floor and latency-bound children with `node --cpu-prof` (into outDir). */
  readonly cpuProf: boolean;
  /** Backfill settings (the sync's defaults: 100 items a page, 2 slices in parallel). */
  readonly pageSize: number;
  readonly concurrency: number;
  /** The backfill's memory budget, bytes (the sync's --memory); undefined: the sync's default. */
  readonly memory?: number;
  /** Added to every response in the latency-bound phase, ms. */
  readonly latencyMs: number;
  /**
   * A built checkout of another version (e.g. main): the incremental and scale phases run its sync
   * (its CLI) beside this one's, step by step against the same simulator, for a before/after in one run.
   */
  readonly baseline?: string;
  /** Run the measured tasks in the bench's own process, not each in a child (the smoke test's mode). */
  readonly inProcess: boolean;
  /** The settings the floor search tries (`--floor-threads`, `--floor-memory`, `--floor-jobs`). */
  readonly floorGrid: FloorGrid;
  /**
   * The smoke test's sizes, below `--scale`'s least: every phase, task kind, figure and target,
   * each from as few runs as produce it (--help says which). Nothing it prints is a measurement.
   */
  readonly smoke: boolean;
}

export const BENCH_HELP = `Usage: npm run bench -- [options]

Measures, side by side in one run, and prints the figures, their ratios and the targets:
- backfill, floor-a, floor-b: a backfill against its floors (DuckDB ingesting the same records
  from NDJSON, with its defaults and held to the budget; fetching and parsing every page) on
  four account shapes: the bench's dataset (2,000 long jobs with translations), S600 (10,000
  jobs of ~600 words), L2k (2,000 jobs of ~600 words) and S60 (10,000 jobs of ~60 words); the
  ratio backfill / max(floor A bounded, floor B) against its goal of 1.5x; peak RSS, the V8
  heap, CPU of the sync and of the simulator;
- idle, naive: a run with nothing new, and a row-by-row loader, on the first shape;
- memory: peak RSS at 10x the jobs; latency: 1, 2 and 4 slices at once against a slow service;
- budget: peak RSS of a backfill, an incremental and a --full run at the default memory budget
  and at 256 MB, for bench and hour-long records;
- incremental: the runs a worker makes at a history of 1,000 and 10,000 jobs (bytes written, time);
- floor-search (only when asked for): on each shape of --shapes, floor A bounded at each setting
  of DuckDB's threads, memory_limit and jobs a transaction, each run stopped once its peak RSS
  passes the budget (--memory); the fastest that held, for bench/datasets.ts's floorBounds;
- scale (only when asked for): accounts of --scale-jobs jobs of ~800 words, each step a command of
  the built CLI (bin/transcript-sync) in a child of its own, one after another on one file:
  back-fill, idle incremental, one new job, sync --full, verify, verify --hashes, a first
  --publish, export, report billing, a query over all words, status, compact; wall time, peak RSS
  (VmHWM), bytes written (write_bytes) and the file's size after each.

Options:
  --scale N        multiply every dataset's job count but the scale phase's (default 1)
  --repeat N       rounds of the backfill and of each floor, alternating shape by shape and task
                   by task, and of each memory-budget step; the median is reported (default 1)
  --only LIST      phases to run, comma-separated: ${PHASES.join(',')}
                   (default all but scale and floor-search)
  --phase LIST     the same as --only (e.g. --phase incremental)
  --shapes LIST    account shapes of backfill, floor-a and floor-b: ${SHAPES.join(',')} (default all)
  --scale-jobs LIST  account sizes of the scale phase, even numbers of jobs (default ${SCALE_JOBS.join(',')})
  --floor-threads LIST  DuckDB threads the floor search tries (default ${FLOOR_THREADS.join(',')})
  --floor-memory LIST   DuckDB memory_limit in MB it tries (default ${FLOOR_MEMORY_MB.join(',')})
  --floor-jobs LIST     jobs a transaction it tries (default about 1, 2, 4 ... 32 MB of the shape's records)
  --out DIR        where to write the JSON figures (default bench/out)
  --cpu-prof       profile the measured children (node --cpu-prof), into --out
  --page-size N    most items per page of the backfill and floor B (default 100; fewer for big jobs)
  --concurrency N  slices fetched in parallel by the backfill (default 2)
  --memory BYTES   the sync's memory budget (--memory; default 512e6), also the RSS targets' bound
  --latency-ms N   ms added to every response in the latency phase (default 50)
  --baseline DIR   a built checkout of another version (npm ci && npm run build there, with this
                   bench's bench/ files): the incremental and scale phases run its sync beside this one's
  --in-process     run the measured tasks and the simulators in the bench's process, not a child
                   each: quicker, but memory, CPU and bytes written are then the bench's (for the
                   smoke test); the scale phase runs the CLI in children (but see --smoke)
  --smoke          the smoke test's mode, checking the bench runs, not measuring: the latency
                   phase on 2 slices a kind; the budget phase's every step for hour-long records
                   at the default budget, a backfill only otherwise; its hour-long jobs and the
                   incremental histories' jobs a tenth as long; the scale phase's commands after
                   the first in the bench's process; the floor search one setting a shape, over
                   its first two transactions; with --in-process, the last shape's tasks and the
                   naive loader still a child each
  -h, --help       show this help

A million-job account: hours on 2 cores (a back-fill of 10,000 jobs takes about a minute of CPU),
and about 60 GB free in the temp directory (the file ~38 kB a job, the export or the published
dataset ~15 kB a job beside it; TMPDIR moves it):
  nice npm run bench -- --only scale --scale-jobs 1000000
`;

function number(
  values: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  integer: boolean,
): number {
  const text = values[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new ConfigError(
      `--${name}`,
      `must be ${integer ? 'a whole number' : 'a number'} >= ${min} (got "${String(text)}")`,
    );
  }
  return value;
}

/** The names of a comma-separated list, each among `known`. */
function names<T extends string>(text: string, flag: string, known: readonly T[], what: string): T[] {
  const given = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (given.length === 0 || given.some((name) => !(known as readonly string[]).includes(name)))
    throw new ConfigError(flag, `takes ${what} among ${known.join(', ')} (got "${text}")`);
  return given as T[];
}

function phases(text: unknown): ReadonlySet<Phase> {
  if (text === undefined) return new Set(DEFAULT_PHASES);
  return new Set(names(String(text), '--only', PHASES, 'phases'));
}

function shapes(text: unknown): readonly ShapeName[] {
  if (text === undefined) return SHAPES;
  const chosen = new Set(names(String(text), '--shapes', SHAPES, 'shapes'));
  return SHAPES.filter((name) => chosen.has(name));
}

function scaleJobs(text: unknown): readonly number[] {
  if (text === undefined) return SCALE_JOBS;
  const sizes = String(text)
    .split(',')
    .map((size) => Number(size.trim().replaceAll('_', '')));
  if (sizes.some((jobs) => !Number.isInteger(jobs) || jobs < 2 || jobs % 2 !== 0))
    throw new ConfigError('--scale-jobs', `takes even numbers of jobs, at least 2 (got "${String(text)}")`);
  return [...new Set(sizes)].sort((a, b) => a - b);
}

/** A comma-separated list of whole numbers >= 1. */
function counts(text: unknown, flag: string): number[] | undefined {
  if (text === undefined) return undefined;
  const values = String(text)
    .split(',')
    .map((value) => Number(value.trim().replaceAll('_', '')));
  if (values.length === 0 || values.some((n) => !Number.isInteger(n) || n < 1))
    throw new ConfigError(flag, `takes whole numbers >= 1, comma-separated (got "${String(text)}")`);
  return [...new Set(values)].sort((a, b) => a - b);
}

function floorGrid(values: Record<string, unknown>): FloorGrid {
  const jobs = counts(values['floor-jobs'], '--floor-jobs');
  return {
    threads: counts(values['floor-threads'], '--floor-threads') ?? FLOOR_THREADS,
    memoryLimitMb: counts(values['floor-memory'], '--floor-memory') ?? FLOOR_MEMORY_MB,
    ...(jobs ? { batchJobs: jobs } : {}),
  };
}

function baseline(text: unknown): { baseline?: string } {
  if (text === undefined) return {};
  const child = join(resolve(String(text)), 'dist', 'bench', 'child.js');
  if (!existsSync(child))
    throw new ConfigError('--baseline', `${child} is missing: build that checkout first (npm run build)`);
  return { baseline: resolve(String(text)) };
}

/** Returns undefined when --help was asked for. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions | undefined {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        scale: { type: 'string' },
        repeat: { type: 'string' },
        only: { type: 'string' },
        phase: { type: 'string' },
        shapes: { type: 'string' },
        'scale-jobs': { type: 'string' },
        out: { type: 'string' },
        'cpu-prof': { type: 'boolean' },
        'page-size': { type: 'string' },
        concurrency: { type: 'string' },
        memory: { type: 'string' },
        'latency-ms': { type: 'string' },
        baseline: { type: 'string' },
        'in-process': { type: 'boolean' },
        'floor-threads': { type: 'string' },
        'floor-memory': { type: 'string' },
        'floor-jobs': { type: 'string' },
        smoke: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new ConfigError('bench', `${error instanceof Error ? error.message : String(error)}; see --help`);
  }
  const values = parsed.values as Record<string, unknown>;
  if (values['help'] === true) return undefined;
  return {
    scale: number(values, 'scale', 1, 0.0001, false),
    repeat: number(values, 'repeat', 1, 1, true),
    phases: phases(values['only'] ?? values['phase']),
    shapes: shapes(values['shapes']),
    scaleJobs: scaleJobs(values['scale-jobs']),
    outDir: typeof values['out'] === 'string' ? values['out'] : join(projectRoot(), 'bench', 'out'),
    cpuProf: values['cpu-prof'] === true,
    pageSize: number(values, 'page-size', 100, 1, true),
    concurrency: number(values, 'concurrency', 2, 1, true),
    ...(values['memory'] === undefined ? {} : { memory: number(values, 'memory', 512e6, 192e6, true) }),
    latencyMs: number(values, 'latency-ms', 50, 0, false),
    ...baseline(values['baseline']),
    inProcess: values['in-process'] === true,
    floorGrid: floorGrid(values),
    smoke: values['smoke'] === true,
  };
}
