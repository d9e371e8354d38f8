/**
 * The storm of the convergence tests: a seeded driver that changes the simulator's data while syncs
 * run (new jobs, late-visible ones, status transitions, edits, deletions), the random faults, and a
 * child-process sync that can be killed with SIGKILL. The chaos test and the soak (test/e2e/soak.test.ts)
 * share it.
 *
 * Everything random is drawn from one seed (CHAOS_SEED), so a failing storm can be replayed; kill
 * points are wall-clock delays, so a replay is close, not identical.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type FaultKind, type FaultRule, Rng, type Simulator } from '../../../src/simulator/index.js';
import { projectRoot } from '../../../src/util/paths.js';

type Json = Record<string, unknown>;

/** The seed of a storm: CHAOS_SEED when set (to replay a failure), else `fallback`. */
export function chaosSeed(fallback: number, text: string | undefined = process.env['CHAOS_SEED']): number {
  if (text === undefined || text.trim() === '') return fallback;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`CHAOS_SEED must be an integer (got "${text}")`);
  return seed;
}

/** Listings that contradict themselves. */
export const GLITCHES = ['empty-page', 'short-page', 'shrink-total'] as const satisfies readonly FaultKind[];

/**
 * Every transient fault the client must ride out, and the listings that contradict themselves
 * (an empty page with a next link, a short page with one, a total that shrinks mid-walk), which the
 * walk asks again instead of taking them for the end of the list.
 */
export const STORM_FAULTS: readonly FaultKind[] = [
  '429',
  '500',
  '502',
  '503',
  '504',
  'reset',
  'slow',
  'truncate',
  ...GLITCHES,
];

/** Turns the simulator's random faults on: a share `rate` of list requests fails. */
export function startFaults(sim: Simulator, seed: number, rate = 0.15): FaultRule {
  const rule: FaultRule = { rate, kinds: STORM_FAULTS, seed };
  // Retry-After '0' or '1' and short slow bodies keep the storm fast; both still exercise the path.
  sim.faults.retryAfter = seed % 2 === 0 ? '0' : '1';
  sim.faults.slowMs = 300;
  sim.faults.setRandom(rule);
  return rule;
}

export interface ChangeCounts {
  added: number;
  hidden: number;
  revealed: number;
  advanced: number;
  edited: number;
  deleted: number;
}

/**
 * Changes the simulator's data at random, one change per tick, until stopped. Ids it deletes are
 * kept in `deleted` (a --full run must mark exactly those, when the mirror held them).
 */
export class UpstreamChaos {
  readonly deleted = new Set<string>();
  readonly counts: ChangeCounts = { added: 0, hidden: 0, revealed: 0, advanced: 0, edited: 0, deleted: 0 };
  private readonly rng: Rng;
  private readonly hidden: { id: string; revealAtTick: number }[] = [];
  private tick = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sim: Simulator,
    seed: number,
  ) {
    this.rng = new Rng(seed);
  }

  /** One change every `everyMs` (default 40 ms) until stop(). */
  start(everyMs = 40): void {
    this.timer ??= setInterval(() => this.step(), everyMs);
  }

  /** Stops changing and reveals every hidden job: the quiet after the storm. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const { id } of this.hidden.splice(0)) this.reveal(id);
  }

  /** One change drawn from the seed. */
  step(): void {
    this.tick += 1;
    for (const due of this.hidden.filter((h) => h.revealAtTick <= this.tick)) {
      this.hidden.splice(this.hidden.indexOf(due), 1);
      this.reveal(due.id);
    }
    const roll = this.rng.next();
    if (roll < 0.2) this.addJob();
    else if (roll < 0.3) this.addHidden();
    else if (roll < 0.55) this.advanceJob();
    else if (roll < 0.8) this.editJob();
    else this.deleteJob();
  }

  private addJob(): void {
    const kind = this.rng.pick(['pre-recorded', 'live'] as const);
    const status = this.rng.pick(['queued', 'queued', 'processing', 'done', 'error'] as const);
    // Created up to 30 s ago: often inside the window a running sync is walking.
    this.sim.data.add({ kind, status, createdAt: new Date(Date.now() - this.rng.int(0, 30_000)) });
    this.counts.added += 1;
  }

  /** A job that becomes listed a few ticks later at its past created_at (within the lookback). */
  private addHidden(): void {
    const kind = this.rng.pick(['pre-recorded', 'live'] as const);
    const status = this.rng.pick(['queued', 'done'] as const);
    const createdAt = new Date(Date.now() - this.rng.int(1_000, 5 * 60_000));
    const record = this.sim.data.add({ kind, status, createdAt, hidden: true });
    this.hidden.push({ id: String(record['id']), revealAtTick: this.tick + this.rng.int(1, 20) });
    this.counts.hidden += 1;
  }

  private reveal(id: string): void {
    if (this.sim.data.get(id) === undefined) return;
    this.sim.data.reveal(id);
    this.counts.revealed += 1;
  }

  private advanceJob(): void {
    const pending = this.sim.data
      .all()
      .filter((r) => r['status'] === 'queued' || r['status'] === 'processing');
    if (pending.length === 0) {
      this.addJob();
      return;
    }
    const job = this.rng.pick(pending);
    const to = this.rng.pick([undefined, undefined, 'done', 'error'] as const);
    this.sim.data.advance(String(job['id']), to);
    this.counts.advanced += 1;
  }

  /** custom_metadata of any job, or the result of a done one: fewer utterances or words, new billing. */
  private editJob(): void {
    const records = this.sim.data.all();
    if (records.length === 0) {
      this.addJob();
      return;
    }
    const job = this.rng.pick(records);
    const n = this.counts.edited;
    const what = this.rng.int(0, 3);
    this.sim.data.edit(String(job['id']), (record) => {
      const result = asObject(record['result']);
      const utterances = asList(asObject(result?.['transcription'])?.['utterances']);
      if (what === 1 && utterances && utterances.length > 1) utterances.pop();
      else if (what === 2 && utterances && utterances.length > 0) {
        asList(asObject(this.rng.pick(utterances))?.['words'])?.pop();
      } else if (what === 3 && asObject(result?.['metadata'])) {
        (result?.['metadata'] as Json)['billing_time'] = Math.round(this.rng.float(1, 5_000) * 1000) / 1000;
      } else record['custom_metadata'] = { chaos_edit: n, team: `team-${this.rng.int(1, 5)}` };
    });
    this.counts.edited += 1;
  }

  /** Half of the deletions hit the newest jobs, which the walk of a running sync is likely inside. */
  private deleteJob(): void {
    const records = this.sim.data.all();
    if (records.length < 10) {
      this.addJob();
      return;
    }
    const pool = this.rng.chance(0.5) ? records.slice(0, 30) : records;
    const id = String(this.rng.pick(pool)['id']);
    if (this.sim.data.delete(id)) {
      this.deleted.add(id);
      this.counts.deleted += 1;
    }
  }
}

function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function asList(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

export interface SyncChild {
  readonly child: ChildProcess;
  /** Resolves when the process is gone: its exit code, or the signal that ended it. */
  readonly done: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
    stdout: string;
  }>;
}

/** The built CLI (dist/, `npm run build`) as a child, with only the environment it is given. */
export function startTranscriptSync(args: readonly string[], env: Record<string, string>): SyncChild {
  const bin = join(projectRoot(), 'bin', 'transcript-sync');
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env['PATH'] ?? '', TSYNC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
    stdout: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr, stdout })));
  return { child, done };
}

/** Waits `ms`, or less when the child ends first. */
export function waitOrExit(child: SyncChild, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void child.done.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
