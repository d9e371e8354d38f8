/** What one bench run measured: the JSON written to bench/out/ and the input of the report. */
import type { ShapeName } from './datasets.js';
import type { FloorABounds } from './floor-a-sql.js';
import type { DatasetFile } from './sim-service.js';

export interface BackfillFigures {
  /** Median wall time of runSync in the child (open, fetch, load, commit, close), ms. */
  readonly wallMs: number;
  readonly runsMs: readonly number[];
  readonly wordsPerSecond: number;
  /** Highest peak RSS of the runs, MiB. */
  readonly peakRssMb: number;
  /** Highest peak of the V8 heap (its total size), MiB: the rest of the RSS is native (DuckDB, buffers). */
  readonly peakHeapMb: number;
  readonly cpuMs: number;
  /** Median CPU time of the simulator child during the runs (user + system), ms. */
  readonly simCpuMs: number;
  readonly words: number;
  readonly jobs: number;
  readonly requests: number;
  readonly pages: number;
}

export interface FloorAFigures {
  readonly wallMs: number;
  readonly runsMs: readonly number[];
  readonly wordsPerSecond: number;
  readonly peakRssMb: number;
  /** Median CPU time of the child (user + system, DuckDB's threads included), ms. */
  readonly cpuMs: number;
  /** Transactions the records were loaded in: 1 unbounded, one per 16 MB bounded. */
  readonly transactions: number;
  /** ms per step of the last run. */
  readonly steps: Readonly<Record<string, number>>;
}

export interface FloorBFigures {
  readonly wallMs: number;
  readonly runsMs: readonly number[];
  readonly megabytesPerSecond: number;
  readonly peakRssMb: number;
  readonly peakHeapMb: number;
  /** Median CPU time of the child, ms. */
  readonly cpuMs: number;
  /** Median CPU time of the simulator child during the runs, ms. */
  readonly simCpuMs: number;
  readonly pages: number;
}

/** One account shape: its backfill and floors, each of `--repeat` rounds alternating with the others. */
export interface ShapeFigures {
  readonly name: ShapeName;
  readonly about: string;
  /** The goal of backfill / max(floor A bounded, floor B) (docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md). */
  readonly goal: number;
  /** Floor A bounded's settings. */
  readonly floorBounds: FloorABounds;
  readonly dataset: DatasetFile;
  readonly backfill?: BackfillFigures;
  /** DuckDB's own ingest with its defaults: GiBs of memory on the larger shapes. */
  readonly floorA?: FloorAFigures;
  /** The same ingest held to the settings that keep `S60` within the budget (bench/task-floor-a.ts). */
  readonly floorABounded?: FloorAFigures;
  readonly floorB?: FloorBFigures;
  /** backfill / max(floor A bounded, floor B) of each round, when all three ran. */
  readonly roundRatios?: readonly number[];
}

/** One setting of floor A bounded tried by the floor search (bench/floor-search.ts). */
export interface FloorTrial {
  readonly bounds: FloorABounds;
  /** held: finished within the budget; over budget: stopped as its peak RSS passed it; failed: DuckDB gave up. */
  readonly outcome: 'held' | 'over budget' | 'failed';
  readonly wallMs?: number;
  /** MiB: the run's peak, or where it was stopped. */
  readonly peakRssMb?: number;
  readonly cpuMs?: number;
  readonly transactions?: number;
  readonly error?: string;
}

export interface FloorSearchShape {
  readonly name: ShapeName;
  readonly jobs: number;
  /** NDJSON bytes of the records. */
  readonly bytes: number;
  /** The peak RSS a setting must hold, MiB. */
  readonly budgetMb: number;
  readonly trials: readonly FloorTrial[];
  /** The fastest setting that held; absent when none did. */
  readonly best?: FloorABounds;
}

export interface FloorSearchFigures {
  readonly shapes: readonly FloorSearchShape[];
}

export interface NaiveFigures {
  readonly subsetJobs: number;
  readonly subsetRows: number;
  readonly subsetMs: number;
  /** subsetMs times (rows of the dataset / rows of the subset). */
  readonly extrapolatedMs: number;
  readonly wordsPerSecond: number;
}

export interface IdleFigures {
  readonly wallMs: number;
  /** List requests the simulator answered, per kind. */
  readonly requests: Readonly<Record<string, number>>;
  /** Pending jobs re-checked, per kind. */
  readonly pendingRechecked: Readonly<Record<string, number>>;
  /** Jobs inserted or updated: 0 when nothing changed upstream. */
  readonly changed: number;
}

export interface MemoryFigures {
  readonly rss1xMb: number;
  readonly rss10xMb: number;
  readonly heap10xMb: number;
  readonly ratio: number;
  readonly jobs10x: number;
  readonly words10x: number;
  readonly wall10xMs: number;
}

export interface BudgetRun {
  /** 'bench' (~118 kB a job) or 'hour-long' (~1.3 MB a job). */
  readonly records: string;
  readonly budgetMb: number;
  readonly step: 'backfill' | 'incremental' | 'full';
  readonly wallMs: number;
  readonly cpuMs: number;
  /** MiB, as `/usr/bin/time -f %M` / 1024: the median round's (`--repeat`). */
  readonly peakRssMb: number;
  /** MiB: the highest peak of the rounds. */
  readonly worstRssMb: number;
  /** How many rounds the median was taken over. */
  readonly rounds: number;
  readonly peakHeapMb: number;
  /** Words written by the step (0 when nothing changed). */
  readonly words: number;
}

export interface BudgetFigures {
  readonly runs: readonly BudgetRun[];
}

export interface LatencyRun {
  readonly concurrency: number;
  readonly wallMs: number;
  readonly requests: number;
  /** Most requests in flight at once at the simulator. */
  readonly peakInFlight: number;
  /** Most requests answered in any 1 s window. */
  readonly peakPerSecond: number;
}

export interface LatencyFigures {
  readonly latencyMs: number;
  readonly jobs: number;
  readonly slicesPerKind: number;
  readonly pageSize: number;
  readonly rateLimit: number;
  readonly runs: readonly LatencyRun[];
}

export interface IncrementalStep {
  readonly name: string;
  readonly wallMs: number;
  /** Bytes the sync process wrote to storage (`/proc/<pid>/io` write_bytes). */
  readonly writeBytes: number;
  /** Requests the simulator answered during the run. */
  readonly requests: number;
  readonly jobsFetched: number;
  /** Jobs inserted or updated. */
  readonly changed: number;
  /** Jobs marked deleted (reconciles). */
  readonly deleted: number;
}

export interface IncrementalVariant {
  /** The DuckDB file after the backfill, bytes. */
  readonly fileBytes: number;
  readonly backfillMs: number;
  readonly backfillWriteBytes: number;
  readonly steps: readonly IncrementalStep[];
}

export interface IncrementalRun extends IncrementalVariant {
  /** Jobs back-filled before the steps. */
  readonly history: number;
  /** JSON of every record served, bytes. */
  readonly jsonBytes: number;
  /** The same steps by the --baseline checkout, run beside this one's. */
  readonly baseline?: IncrementalVariant;
}

export interface IncrementalFigures {
  readonly runs: readonly IncrementalRun[];
}

/** One command of the built CLI in the scale phase, measured in its own process. */
export interface CliStep {
  /** The step, e.g. 'back-fill' or 'verify --hashes'. */
  readonly name: string;
  /** The command's arguments (its --db and output folders left out). */
  readonly command: string;
  /** 0 when the command succeeded; else its exit code, or the signal that ended it. */
  readonly exit: number | string;
  /** The last line it wrote on stderr, when it failed. */
  readonly error?: string;
  /** From the start of the process to its end (node's start-up included), ms. */
  readonly wallMs: number;
  /** Peak resident set (VmHWM at exit), MiB; absent when the process died before it could tell. */
  readonly peakRssMb?: number;
  /** Peak of the V8 heap (its total size), MiB. */
  readonly peakHeapMb?: number;
  /** User + system CPU time of the process, ms. */
  readonly cpuMs?: number;
  /** Bytes the process caused to be written to storage (`/proc/self/io` write_bytes at exit). */
  readonly writeBytes?: number;
  /** The database file and its WAL after the step, bytes. */
  readonly fileBytes: number;
  /** Bytes of the files the step wrote in its output folder (export, --publish). */
  readonly outputBytes?: number;
  /** Sync steps (from --json): jobs inserted or updated, and words loaded. */
  readonly changed?: number;
  readonly words?: number;
  /** CPU time of the simulator child during the step, ms. */
  readonly simCpuMs: number;
}

export interface ScaleRun {
  /** Jobs of the account. */
  readonly jobs: number;
  readonly steps: readonly CliStep[];
  /** The same steps by the --baseline checkout's CLI, on a file of its own. */
  readonly baseline?: readonly CliStep[];
}

export interface ScaleFigures {
  /** The memory budget the commands ran with, bytes (the RSS target). */
  readonly budgetBytes: number;
  readonly runs: readonly ScaleRun[];
}

export interface Figures {
  machine?: {
    nproc: number;
    cpu: string;
    node: string;
    platform: string;
    /** os.loadavg() (1, 5 and 15 minutes) when the run started and when it ended. */
    load: { start: number[]; end: number[] };
  };
  options: Record<string, unknown>;
  shapes?: ShapeFigures[];
  naive?: NaiveFigures;
  idle?: IdleFigures;
  memory?: MemoryFigures;
  latency?: LatencyFigures;
  budget?: BudgetFigures;
  incremental?: IncrementalFigures;
  scale?: ScaleFigures;
  floorSearch?: FloorSearchFigures;
}
