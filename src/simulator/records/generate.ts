/**
 * Seeded datasets: the options that define an account resolved into an AccountSpec, and the whole
 * dataset as records for tests that want an array; the same seed and options, the same bytes.
 * With `timeline` (start and jobs a day) job i's created_at depends on i only, so the first N jobs
 * of a longer account are the same jobs; with `from`/`to` the dates depend on how many there are.
 */
import { Account, type AccountSpec } from '../account.js';
import { GENERATE_DEFAULTS } from '../defaults.js';
import type { GenerateOptions, JobRecord } from '../types.js';

const DAY_MS = 86_400_000;

/** The account the options describe and how many of its jobs the dataset holds. */
export function accountSpec(options: GenerateOptions = {}): { spec: AccountSpec; jobs: number } {
  const counted = options.preRecorded !== undefined || options.live !== undefined;
  const total = options.jobs ?? GENERATE_DEFAULTS.preRecorded + GENERATE_DEFAULTS.live;
  const preRecorded = counted ? (options.preRecorded ?? GENERATE_DEFAULTS.preRecorded) : Math.ceil(total / 2);
  const jobs = counted ? preRecorded + (options.live ?? GENERATE_DEFAULTS.live) : total;
  for (const [name, value] of Object.entries({ preRecorded, jobs })) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`${name} must be a whole number (got ${value})`);
  }
  const spec: AccountSpec = {
    seed: options.seed ?? GENERATE_DEFAULTS.seed,
    kinds: counted && jobs > 0 ? { preRecorded, of: jobs } : { preRecorded: 1, of: 2 },
    utterancesPerJob: options.utterancesPerJob ?? GENERATE_DEFAULTS.utterancesPerJob,
    wordsPerUtterance: options.wordsPerUtterance ?? GENERATE_DEFAULTS.wordsPerUtterance,
    history: history(options, jobs),
    ...(options.recordPadding ? { padding: options.recordPadding } : {}),
  };
  return { spec, jobs };
}

function history(options: GenerateOptions, jobs: number): AccountSpec['history'] {
  if (options.timeline) {
    if (options.from || options.to) throw new RangeError('give either `timeline` or `from`/`to`, not both');
    const { start, jobsPerDay } = options.timeline;
    if (!(jobsPerDay > 0)) throw new RangeError(`jobsPerDay must be above 0 (got ${jobsPerDay})`);
    return { firstIndex: 0, startMs: start.getTime(), gapMs: DAY_MS / jobsPerDay };
  }
  const endMs = (options.to ?? GENERATE_DEFAULTS.to).getTime();
  const startMs = options.from?.getTime() ?? endMs - GENERATE_DEFAULTS.days * DAY_MS;
  if (!(startMs < endMs)) throw new RangeError('generateDataset: `from` must be before `to`');
  return { firstIndex: 0, startMs, gapMs: (endMs - startMs) / Math.max(1, jobs) };
}

/** Every job of the dataset as a record, newest first. Builds them all: for tests, not for big accounts. */
export function generateDataset(options: GenerateOptions = {}): JobRecord[] {
  const { spec, jobs } = accountSpec(options);
  const account = new Account(spec);
  return Array.from({ length: jobs }, (_, i) => account.record(i)).sort(newestFirst);
}

/** The order of every list: created_at descending, ties by id descending. */
export function newestFirst(a: JobRecord, b: JobRecord): number {
  const ca = String(a['created_at']);
  const cb = String(b['created_at']);
  if (ca !== cb) return ca < cb ? 1 : -1;
  const ia = String(a['id']);
  const ib = String(b['id']);
  return ia === ib ? 0 : ia < ib ? 1 : -1;
}
