/**
 * Seeded generation of job records of both kinds (spec 2.2-2.8). The same seed and options give
 * the same records, byte for byte. Statuses follow the mix of a busy account (~80% done, ~8%
 * error, ~6% queued, ~6% processing); features are drawn per job, from none to every module.
 */
import { featuresOf } from './features.js';
import { liveParams } from './params-live.js';
import { preRecordedParams } from './params-pre-recorded.js';
import { drawRichness } from './params-shared.js';
import { buildResult } from './result.js';
import { Rng, round } from './rng.js';
import { plannedDuration } from './transcript.js';
import type { JobKind, JobRecord, JobSpec, JobStatus } from './types.js';
import { COMPANIES, TEAMS } from './vocabulary.js';

export interface GenerateOptions {
  /** Default 7. */
  seed?: number;
  /** Jobs of each kind; defaults 100 and 100. */
  preRecorded?: number;
  live?: number;
  /** Mean utterances per done job, default 12 (each job varies +-50%). */
  utterancesPerJob?: number;
  /** Mean words per utterance, default 8 (each utterance varies +-50%). */
  wordsPerUtterance?: number;
  /** created_at range [from, to); default the 90 days before 2026-11-01T00:00:00Z. */
  from?: Date;
  to?: Date;
}

export const GENERATE_DEFAULTS = {
  seed: 7,
  preRecorded: 100,
  live: 100,
  utterancesPerJob: 12,
  wordsPerUtterance: 8,
  to: new Date('2026-11-01T00:00:00.000Z'),
  days: 90,
} as const;

const STATUS_MIX: readonly (readonly [JobStatus, number])[] = [
  ['done', 0.8],
  ['error', 0.08],
  ['queued', 0.06],
  ['processing', 0.06],
];

/** Share of jobs created in the same millisecond as the one before, so that ordering ties occur. */
const TIE_RATE = 0.03;

export function generateDataset(options: GenerateOptions = {}): JobRecord[] {
  const seed = options.seed ?? GENERATE_DEFAULTS.seed;
  const to = options.to ?? GENERATE_DEFAULTS.to;
  const from = options.from ?? new Date(to.getTime() - GENERATE_DEFAULTS.days * 86_400_000);
  if (!(from.getTime() < to.getTime())) throw new RangeError('generateDataset: `from` must be before `to`');
  const kinds: JobKind[] = [
    ...Array<JobKind>(options.preRecorded ?? GENERATE_DEFAULTS.preRecorded).fill('pre-recorded'),
    ...Array<JobKind>(options.live ?? GENERATE_DEFAULTS.live).fill('live'),
  ];
  const rng = new Rng(seed);
  const records: JobRecord[] = [];
  let previous: Date | undefined;
  for (const kind of kinds) {
    const createdAt =
      previous && rng.chance(TIE_RATE)
        ? previous
        : new Date(from.getTime() + Math.floor(rng.next() * (to.getTime() - from.getTime())));
    previous = createdAt;
    records.push(
      generateJob(rng, {
        kind,
        status: rng.weighted(STATUS_MIX),
        createdAt,
        utterances: rng.around(options.utterancesPerJob ?? GENERATE_DEFAULTS.utterancesPerJob),
        words: options.wordsPerUtterance ?? GENERATE_DEFAULTS.wordsPerUtterance,
      }),
    );
  }
  return records.sort(newestFirst);
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

export function generateJob(rng: Rng, spec: JobSpec): JobRecord {
  const id = rng.uuid();
  const language = rng.weighted([
    ['en', 0.7],
    ['fr', 0.1],
    ['es', 0.1],
    ['de', 0.1],
  ] as const);
  const richness = drawRichness(rng);
  const channels = spec.kind === 'live' ? rng.pick([1, 1, 2]) : rng.pick([1, 2]);
  const fileId = spec.kind === 'live' ? id : rng.uuid();
  const record: JobRecord = {
    id,
    request_id: `G-${id.slice(0, 8)}`,
    version: 2,
    status: 'queued',
    created_at: spec.createdAt.toISOString(),
    completed_at: null,
    custom_metadata: customMetadata(rng),
    error_code: null,
    kind: spec.kind,
    file: {
      id: fileId,
      filename:
        spec.kind === 'live'
          ? `${id}.wav`
          : `${rng.pick(['call', 'meeting', 'interview', 'recording'])}-${rng.int(1e12, 2e12)}.${rng.pick(['mp3', 'wav', 'm4a'])}`,
      source: null,
      audio_duration: round(plannedDuration(rng, spec.utterances, spec.words), 2),
      number_of_channels: channels,
    },
    request_params:
      spec.kind === 'live'
        ? liveParams(rng, { language, channels, richness })
        : preRecordedParams(rng, { fileId, language, richness }),
    result: null,
  };
  if (rng.chance(spec.kind === 'live' ? 0.25 : 0.05)) {
    record['post_session_metadata'] = {
      end_reason: rng.pick(['client_closed', 'max_duration', 'idle']),
      client: rng.pick(['web', 'sdk-js', 'sdk-python']),
    };
  }
  const plan = { utterances: spec.utterances, words: spec.words, language };
  if (spec.status === 'processing') record['status'] = 'processing';
  if (spec.status === 'done') completeJob(rng, record, plan);
  if (spec.status === 'error') failJob(rng, record);
  return record;
}

export interface CompletionPlan {
  readonly utterances: number;
  readonly words: number;
  /** Defaults to the language the request asked for, else `en`. */
  readonly language?: string;
}

/** Makes a job done: a result for its requested features, completed_at after created_at. */
export function completeJob(rng: Rng, record: JobRecord, plan: CompletionPlan): void {
  const kind: JobKind = record['kind'] === 'live' ? 'live' : 'pre-recorded';
  const file = asObject(record['file']);
  const channels = Number(file['number_of_channels']) || 1;
  const audioDuration = Number(file['audio_duration']) || plannedDuration(rng, plan.utterances, plan.words);
  const result = buildResult(rng, {
    id: String(record['id']),
    kind,
    features: featuresOf(kind, record['request_params']),
    language: plan.language ?? requestedLanguage(record['request_params']),
    utterances: plan.utterances,
    wordsPerUtterance: plan.words,
    audioDuration,
    channels,
  });
  const seconds = Number(asObject(result['metadata'])['transcription_time']) + rng.float(0.5, 30);
  record['status'] = 'done';
  record['completed_at'] = after(record['created_at'], seconds);
  record['error_code'] = null;
  record['result'] = result;
}

/** Makes a job fail: an HTTP-shaped error_code, no result, sometimes no file or request_params. */
export function failJob(rng: Rng, record: JobRecord): void {
  record['status'] = 'error';
  record['error_code'] = rng.pick([400, 400, 422, 422, 500]);
  record['completed_at'] = after(record['created_at'], rng.float(1, 30));
  record['result'] = null;
  if (rng.chance(0.3)) record['file'] = null;
  if (rng.chance(0.3)) record['request_params'] = null;
}

function customMetadata(rng: Rng): Record<string, unknown> | null {
  if (rng.chance(0.4)) return null;
  const out: Record<string, unknown> = { team: rng.pick(TEAMS) };
  if (rng.chance(0.5)) out['customer'] = rng.pick(COMPANIES);
  // A number on purpose: the filter compares values as strings.
  if (rng.chance(0.3)) out['priority'] = rng.int(1, 3);
  return out;
}

function requestedLanguage(params: unknown): string {
  const p = asObject(params);
  if (typeof p['language'] === 'string') return p['language'];
  const languages = asObject(p['language_config'])['languages'];
  return Array.isArray(languages) && typeof languages[0] === 'string' ? languages[0] : 'en';
}

function after(createdAt: unknown, seconds: number): string {
  const base = Date.parse(String(createdAt));
  return new Date((Number.isNaN(base) ? Date.now() : base) + Math.round(seconds * 1000)).toISOString();
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
