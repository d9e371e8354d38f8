/**
 * The scale phase: for each account size of `--scale-jobs` (scaleDataset: ~800 words a job), the
 * commands an operator runs, one after another on one file, each the built CLI in a process of its
 * own (bench/cli-run.ts; with `--smoke` the first only, the others in the bench's, bench/cli-here.ts): back-fill, an idle incremental run, a run that finds one new job,
 * `sync --full`, `verify`, `verify --hashes`, a first `--publish`, `export`, `report billing`, a
 * query aggregating every word, `status` and `compact`. Each step's wall time, peak RSS, V8 heap, CPU, bytes written and
 * the file's size after it; the simulator child's CPU beside. The commands run with the sync's
 * defaults but a limiter that shapes nothing, so the figures are the commands' own.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MEMORY } from '../src/memory/budget.js';
import { projectRoot } from '../src/util/paths.js';
import type { BenchOptions } from './args.js';
import { type CliRun, cliBin, runCli } from './cli-run.js';
import { scaleDataset } from './datasets.js';
import type { CliStep, ScaleFigures, ScaleRun } from './figures.js';
import { type Say, simCpuMs } from './phase-kit.js';
import { SimProcess } from './sim-process.js';

/** Requests per second of the commands' limiter: high, so the figure is the sync's own. */
const RATE_LIMIT = 1_000;
/** When the one new job was created upstream: after the history, inside the first page, ms ago. */
const NEW_JOB_AGO_MS = 60_000;
/** The query step: an aggregate that reads every word. */
const WORDS_QUERY =
  'SELECT count(*) AS words, count(DISTINCT word) AS distinct_words, avg(confidence) AS mean_confidence, ' +
  'sum("end" - start) AS spoken_seconds FROM words';

/** Where a variant keeps its file and the folders its commands write. */
interface Place {
  readonly dir: string;
  readonly db: string;
  readonly published: string;
  readonly exported: string;
}

interface StepSpec {
  readonly name: string;
  /** The command, as the report shows it. */
  readonly command: string;
  readonly args: (place: Place) => string[];
  /** What changes upstream before the step, once for every variant. */
  readonly upstream?: (sim: SimProcess) => Promise<unknown>;
  /** The folder the step writes: measured after it, then deleted (disk is short at a million jobs). */
  readonly output?: (place: Place) => string;
}

const sync = (name: string, ...flags: string[]): StepSpec => ({
  name,
  command: ['sync', ...flags].join(' '),
  args: () => ['sync', ...flags, '--json'],
});

const SCALE_STEPS: readonly StepSpec[] = [
  sync('back-fill'),
  sync('idle incremental'),
  { ...sync('one new job'), upstream: (sim) => sim.addJobs(1, 'done', NEW_JOB_AGO_MS) },
  sync('sync --full', '--full'),
  { name: 'verify', command: 'verify', args: () => ['verify'] },
  { name: 'verify --hashes', command: 'verify --hashes', args: () => ['verify', '--hashes'] },
  {
    name: 'first --publish',
    command: 'sync --publish DIR',
    args: (place) => ['sync', '--publish', place.published, '--json'],
    output: (place) => place.published,
  },
  {
    name: 'export',
    command: 'export --out DIR',
    args: (place) => ['export', '--out', place.exported],
    output: (place) => place.exported,
  },
  { name: 'report billing', command: 'report billing', args: () => ['report', 'billing'] },
  {
    name: 'query, all words',
    command: 'query "SELECT count(*), count(DISTINCT word), ... FROM words"',
    args: () => ['query', WORDS_QUERY, '--format', 'csv'],
  },
  { name: 'status', command: 'status', args: () => ['status'] },
  // Last: it rewrites the file.
  { name: 'compact', command: 'compact', args: () => ['compact'] },
];

export async function runScalePhase(options: BenchOptions, dir: string, say: Say): Promise<ScaleFigures> {
  const runs: ScaleRun[] = [];
  for (const jobs of options.scaleJobs) runs.push(await atSize(jobs, options, dir, say));
  return { budgetBytes: options.memory ?? DEFAULT_MEMORY, runs };
}

/** One CLI measured in the phase: this checkout's, or the --baseline one's. */
interface Variant {
  readonly label: string;
  readonly bin: string;
  readonly place: Place;
  readonly steps: CliStep[];
}

function place(dir: string): Place {
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    db: join(dir, 'scale.duckdb'),
    published: join(dir, 'published'),
    exported: join(dir, 'exported'),
  };
}

async function atSize(jobs: number, options: BenchOptions, dir: string, say: Say): Promise<ScaleRun> {
  say(`scale: serving ${jobs} jobs from the simulator child`);
  const sim = await SimProcess.start(scaleDataset(jobs));
  const variants: Variant[] = [
    ...(options.baseline
      ? [
          {
            label: 'baseline',
            bin: cliBin(options.baseline),
            place: place(join(dir, `scale-${jobs}-baseline`)),
            steps: [],
          },
        ]
      : []),
    { label: '', bin: cliBin(projectRoot()), place: place(join(dir, `scale-${jobs}`)), steps: [] },
  ];
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? dir,
    TSYNC_BASE_URL: sim.url,
    TSYNC_API_KEY: sim.apiKey,
    TSYNC_RATE_LIMIT: String(RATE_LIMIT),
    TSYNC_PAGE_SIZE: String(options.pageSize),
    TSYNC_CONCURRENCY: String(options.concurrency),
    TSYNC_LOG_LEVEL: 'warn',
    ...(options.memory === undefined ? {} : { TSYNC_MEMORY: String(options.memory) }),
  };
  try {
    // With --smoke only the first step is a process of its own; the others run in the bench's process.
    const here = options.smoke ? (await import('./cli-here.js')).runCliHere : undefined;
    for (const [i, spec] of SCALE_STEPS.entries()) {
      await spec.upstream?.(sim);
      // The baseline first, then this checkout: the same upstream for both.
      for (const v of variants) {
        const before = await sim.usage();
        const args = [...spec.args(v.place), '--db', v.place.db];
        const run = here && i > 0 && !v.label ? await here(args, env) : await runCli(v.bin, args, env);
        const measured = cliStep(spec, run, fileBytes(v.place.db), simCpuMs(before, await sim.usage()));
        const output = spec.output?.(v.place);
        const step = output ? { ...measured, outputBytes: takeFolder(output) } : measured;
        v.steps.push(step);
        say(`scale ${jobs}${v.label ? ` (${v.label})` : ''}: ${describe(step)}`);
      }
    }
    const self = variants.at(-1)!;
    const base = options.baseline ? variants[0] : undefined;
    return { jobs, steps: self.steps, ...(base ? { baseline: base.steps } : {}) };
  } finally {
    await sim.close();
    for (const v of variants) rmSync(v.place.dir, { recursive: true, force: true });
  }
}

/** Bytes of the files under `dir` (0 when it is missing); then deletes it. */
function takeFolder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

function fileBytes(db: string): number {
  let bytes = 0;
  for (const file of [db, `${db}.wal`]) {
    try {
      bytes += statSync(file).size;
    } catch {
      // No WAL (or no file yet): nothing to add.
    }
  }
  return bytes;
}

/** Jobs inserted or updated and words loaded, from a sync's --json summary (its last JSON line). */
function syncCounts(stdout: string): { changed: number; words: number } | undefined {
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((text) => text.startsWith('{'));
  if (!line) return undefined;
  try {
    const summary = JSON.parse(line) as {
      kinds?: { inserted?: number; updated?: number; words?: number }[];
    };
    const kinds = summary.kinds ?? [];
    return {
      changed: kinds.reduce((n, k) => n + (k.inserted ?? 0) + (k.updated ?? 0), 0),
      words: kinds.reduce((n, k) => n + (k.words ?? 0), 0),
    };
  } catch {
    return undefined;
  }
}

function cliStep(spec: StepSpec, run: CliRun, fileBytesAfter: number, simCpuMs: number): CliStep {
  const exit = run.code ?? run.signal ?? 'unknown';
  const error = run.stderrTail
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .at(-1);
  const counts = spec.command.startsWith('sync') ? syncCounts(run.stdout) : undefined;
  const probe = run.probe;
  return {
    name: spec.name,
    command: spec.command,
    exit,
    ...(exit !== 0 && error ? { error } : {}),
    wallMs: run.wallMs,
    ...(probe
      ? {
          peakRssMb: probe.peakRssBytes / 2 ** 20,
          peakHeapMb: probe.peakHeapBytes / 2 ** 20,
          cpuMs: probe.cpuMs,
          writeBytes: probe.writeBytes,
        }
      : {}),
    fileBytes: fileBytesAfter,
    ...(counts ?? {}),
    simCpuMs,
  };
}

function describe(step: CliStep): string {
  const failed = step.exit === 0 ? '' : ` FAILED (exit ${step.exit}: ${step.error ?? 'no message'})`;
  const rss = step.peakRssMb === undefined ? '?' : step.peakRssMb.toFixed(0);
  const written = step.writeBytes === undefined ? '?' : (step.writeBytes / 1e6).toFixed(1);
  return (
    `${step.name}: ${(step.wallMs / 1_000).toFixed(2)} s, peak RSS ${rss} MiB, ${written} MB written, ` +
    `file ${(step.fileBytes / 1e6).toFixed(1)} MB${failed}`
  );
}
