/**
 * The datasets of one bench run, their job counts times `--scale`. History ends an hour ago and
 * spans 90 days, so the idle run finds nothing new and the pending jobs of the last 7 days are
 * re-checked, as they would be on a live account.
 */
import type { FloorABounds } from './floor-a-sql.js';
import type { SimChildOptions } from './sim-service.js';

/** The account shapes the backfill and its floors are measured on, in report order. */
export const SHAPES = ['bench', 'S600', 'L2k', 'S60'] as const;
export type ShapeName = (typeof SHAPES)[number];

export interface Shape {
  readonly name: ShapeName;
  /** What the account is, for the report. */
  readonly about: string;
  readonly sim: SimChildOptions;
  /** The goal of backfill / max(floor A bounded, floor B) (docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md). */
  readonly goal: number;
  /**
   * Floor A bounded's settings: the fastest that `--only floor-search` found keeping DuckDB's ingest
   * of this shape within the default budget
   * (docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md).
   */
  readonly floorBounds: FloorABounds;
}

/** The floor search's grid (bench/floor-search.ts), unless `--floor-threads`, `--floor-memory` or `--floor-jobs` narrow it. */
export const FLOOR_THREADS = [1, 2] as const;
export const FLOOR_MEMORY_MB = [150, 200, 250, 300, 350, 400] as const;

export interface FloorGrid {
  readonly threads: readonly number[];
  readonly memoryLimitMb: readonly number[];
  /** Jobs a transaction; undefined: about 1, 2, 4, 8, 16 and 32 MB of NDJSON in the shape's jobs. */
  readonly batchJobs?: readonly number[];
}

export interface LatencyDataset {
  readonly sim: SimChildOptions;
  /** Page size and slice size giving >= 8 slices per kind of a few pages each (2 of a page with `--smoke`). */
  readonly pageSize: number;
  readonly sliceJobs: number;
}

export interface Datasets {
  /** 2,000 jobs of both kinds, ~60 utterances of ~15 words: the bench's dataset (the first shape). */
  readonly main: SimChildOptions;
  /** Every account shape; the first one run also serves the idle run and the naive loader. */
  readonly shapes: readonly Shape[];
  /** 10x the jobs with a tenth of the utterances (memory scaling). */
  readonly tenfold: SimChildOptions;
  readonly latency: LatencyDataset;
  /**
   * Hour-long transcripts: ~600 utterances of 15 words, ~1.3 MB of JSON a job (the memory budget);
   * 240 jobs at `--scale 1`, at least one of each kind at any scale. With `--smoke` a tenth of the
   * utterances: the phase runs and reports the same steps, and measures nothing.
   */
  readonly hourLong: SimChildOptions;
  /** Jobs the naive loader inserts row by row before extrapolating. */
  readonly naiveJobs: number;
}

const DAY_MS = 86_400_000;
/**
 * Slices per kind of the latency-bound backfill: three full rounds of 4 parallel slices (at least 8
 * are wanted). Planning (the first page, then the boundary probes) and opening and closing
 * the file do not shrink with parallelism; more slices amortize them as a longer history would.
 */
const SLICES_PER_KIND = 12;
/** Slices per kind of the latency-bound backfill in the smoke test (`--smoke`): still more than 1. */
const SMOKE_SLICES_PER_KIND = 2;
/** Utterances of an hour-long job in the smoke test (`--smoke`): a tenth of an hour. */
const SMOKE_HOUR_LONG_UTTERANCES = 60;
/** Utterances of an incremental history's job in the smoke test (`--smoke`): a tenth of the bench's. */
const SMOKE_INCREMENTAL_UTTERANCES = 6;
/** Pages per slice: the engine's own default (sliceJobs = 4 x pageSize). */
const PAGES_PER_SLICE = 4;

function dataset(
  jobs: number,
  utterancesPerJob: number,
  wordsPerUtterance: number,
  now: Date,
  seed: number,
): SimChildOptions {
  const to = new Date(now.getTime() - 3_600_000);
  return {
    preRecorded: Math.ceil(jobs / 2),
    live: Math.floor(jobs / 2),
    utterancesPerJob,
    wordsPerUtterance,
    seed,
    from: new Date(to.getTime() - 90 * DAY_MS).toISOString(),
    to: to.toISOString(),
    limitCap: 1_000,
  };
}

/** The goal of every shape: the backfill within 1.5x of the slower of its floors. */
const GOAL = 1.5;

/**
 * `smoke`: the latency dataset at its least and the hour-long jobs a tenth as long (`--smoke`); the
 * others are `scale`'s.
 */
export function datasets(scale: number, now = new Date(), smoke = false): Datasets {
  const jobs = Math.max(4, Math.round(2_000 * scale));
  const slicesPerKind = smoke ? SMOKE_SLICES_PER_KIND : SLICES_PER_KIND;
  const latencyJobs = smoke ? 2 * slicesPerKind : Math.max(2 * slicesPerKind * 2, Math.round(400 * scale));
  const sliceJobs = Math.max(1, Math.ceil(latencyJobs / 2 / slicesPerKind));
  const manyJobs = Math.max(4, Math.round(10_000 * scale));
  const main = dataset(jobs, 60, 15, now, 7);
  return {
    main,
    shapes: [
      // ~1,250 words a job with translations and diarizations, ~118 kB of JSON.
      {
        name: 'bench',
        about: 'long jobs with translations',
        sim: main,
        goal: GOAL,
        floorBounds: { memoryLimitMb: 350, threads: 1, batchJobs: 140 },
      },
      // ~600 and ~60 words a job (~58 kB and ~8.5 kB of JSON): a job's own cost weighs more.
      {
        name: 'S600',
        about: '~600 words a job',
        sim: dataset(manyJobs, 29, 15, now, 13),
        goal: GOAL,
        floorBounds: { memoryLimitMb: 200, threads: 1, batchJobs: 270 },
      },
      // S600's jobs, a fifth of them: the job's cost against a smaller account's.
      {
        name: 'L2k',
        about: '~600 words a job',
        sim: dataset(jobs, 29, 15, now, 15),
        goal: GOAL,
        floorBounds: { memoryLimitMb: 300, threads: 1, batchJobs: 530 },
      },
      {
        name: 'S60',
        about: '~60 words a job',
        sim: dataset(manyJobs, 3, 15, now, 14),
        goal: GOAL,
        floorBounds: { memoryLimitMb: 350, threads: 1, batchJobs: 3_700 },
      },
    ],
    tenfold: dataset(jobs * 10, 6, 15, now, 8),
    hourLong: dataset(
      Math.max(2, Math.round(240 * scale)),
      smoke ? SMOKE_HOUR_LONG_UTTERANCES : 600,
      15,
      now,
      10,
    ),
    latency: {
      sim: dataset(latencyJobs, 3, 5, now, 9),
      pageSize: Math.max(1, Math.ceil(sliceJobs / PAGES_PER_SLICE)),
      sliceJobs,
    },
    naiveJobs: Math.min(jobs, Math.max(1, Math.round(20 * scale))),
  };
}

/**
 * The incremental phase's history: the main dataset's job shape, `jobs` of them; with `smoke`
 * (`--smoke`) a tenth of the utterances a job.
 */
export function incrementalDataset(jobs: number, smoke = false, now = new Date()): SimChildOptions {
  return dataset(jobs, smoke ? SMOKE_INCREMENTAL_UTTERANCES : 60, 15, now, 11);
}

/** Where the scale accounts' history starts, and its pace: a million jobs end 100 days later. */
const SCALE_START = '2026-01-01T00:00:00.000Z';
const SCALE_JOBS_PER_DAY = 10_000;

/**
 * An account of `jobs` jobs of about 800 words (40 utterances of 15 words, as `simulate
 * --utterances 40 --words 15`), on one prefix-stable timeline: the 10,000-job account is the oldest
 * 10,000 jobs of the 100,000-job one, byte for byte, so a bench can back-fill one size and then
 * find the next size's jobs as newer ones. Records are built per request: a million jobs start
 * in seconds and hold tens of MB in the simulator child.
 */
export function scaleDataset(jobs: number): SimChildOptions {
  // Kinds interleave in the preRecorded:live proportion: one half each at every size.
  if (jobs % 2 !== 0) throw new RangeError(`scaleDataset: give an even number of jobs (got ${jobs})`);
  return {
    preRecorded: jobs / 2,
    live: jobs / 2,
    utterancesPerJob: 40,
    wordsPerUtterance: 15,
    seed: 12,
    timeline: { start: SCALE_START, jobsPerDay: SCALE_JOBS_PER_DAY },
    limitCap: 1_000,
  };
}
