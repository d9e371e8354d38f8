/**
 * One job record of either kind (spec 2.2-2.8), drawn from a generator: its request, its file and,
 * once done, its result; features are drawn per job, from none to every module.
 */
import { type Rng, round } from '../rng.js';
import type { JobKind, JobRecord, JobSpec, JobStatus } from '../types.js';
import { featuresOf, obj } from './modules.js';
import { drawRichness, liveParams, preRecordedParams } from './params.js';
import { buildResult } from './result.js';
import { plannedDuration } from './transcript.js';
import { COMPANIES, TEAMS } from './vocabulary.js';

/** The statuses of a busy account's jobs. */
export const STATUS_MIX: readonly (readonly [JobStatus, number])[] = [
  ['done', 0.8],
  ['error', 0.08],
  ['queued', 0.06],
  ['processing', 0.06],
];

/** A job drawn whole from `rng`, its id and custom_metadata included. */
export function generateJob(rng: Rng, spec: JobSpec): JobRecord {
  const id = rng.uuid();
  return buildJob(rng, spec, id, metadataOf(drawMetadataCode(rng)));
}

/** A job of a given id and custom_metadata, the rest drawn from `rng`. */
export function buildJob(
  rng: Rng,
  spec: JobSpec,
  id: string,
  customMetadata: Record<string, unknown> | null,
): JobRecord {
  const language = rng.weighted([
    ['en', 0.7],
    ['fr', 0.1],
    ['es', 0.1],
    ['de', 0.1],
  ] as const);
  const richness = drawRichness(rng);
  const channels = spec.kind === 'live' ? rng.pick([1, 1, 2]) : rng.pick([1, 2]);
  const fileId = spec.kind === 'live' ? id : rng.uuid();
  const context = { fileId, language, channels, richness };
  const record: JobRecord = {
    id,
    request_id: `G-${id.slice(0, 8)}`,
    version: 2,
    status: 'queued',
    created_at: spec.createdAt.toISOString(),
    completed_at: null,
    custom_metadata: customMetadata,
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
    request_params: (spec.kind === 'live' ? liveParams : preRecordedParams)(rng, context),
    result: null,
  };
  if (rng.chance(spec.kind === 'live' ? 0.25 : 0.05)) {
    record['post_session_metadata'] = {
      end_reason: rng.pick(['client_closed', 'max_duration', 'idle']),
      client: rng.pick(['web', 'sdk-js', 'sdk-python']),
    };
  }
  moveJob(rng, record, spec.status, { utterances: spec.utterances, words: spec.words, language });
  return record;
}

/** Moves a record on to `status`, drawing from `rng` a result for `plan` (done) or a failure (error). */
export function moveJob(rng: Rng, record: JobRecord, status: JobStatus, plan: CompletionPlan): void {
  if (status === 'done') completeJob(rng, record, plan);
  else if (status === 'error') failJob(rng, record);
  else record['status'] = status;
}

/** `language` defaults to the one the request asked for, else `en`. */
type CompletionPlan = Pick<JobSpec, 'utterances' | 'words'> & { readonly language?: string };

/** Makes a job done: a result for its requested features, completed_at after created_at. */
function completeJob(rng: Rng, record: JobRecord, plan: CompletionPlan): void {
  const kind: JobKind = record['kind'] === 'live' ? 'live' : 'pre-recorded';
  const file = obj(record['file']);
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
  const seconds = Number(obj(result['metadata'])['transcription_time']) + rng.float(0.5, 30);
  record['status'] = 'done';
  record['completed_at'] = after(record['created_at'], seconds);
  record['error_code'] = null;
  record['result'] = result;
}

/** Makes a job fail: an HTTP-shaped error_code, no result, sometimes no file or request_params. */
function failJob(rng: Rng, record: JobRecord): void {
  record['status'] = 'error';
  record['error_code'] = rng.pick([400, 400, 422, 422, 500]);
  record['completed_at'] = after(record['created_at'], rng.float(1, 30));
  record['result'] = null;
  if (rng.chance(0.3)) record['file'] = null;
  if (rng.chance(0.3)) record['request_params'] = null;
}

/**
 * custom_metadata as a one-byte code (0 is null, else team, customer and priority packed), so an
 * account keeps every job's metadata in one byte. The priority is a number on purpose: the filter
 * compares values as strings.
 */
export function drawMetadataCode(rng: Rng): number {
  if (rng.chance(0.4)) return 0;
  const team = rng.int(0, TEAMS.length - 1);
  const customer = rng.chance(0.5) ? rng.int(0, COMPANIES.length - 1) : COMPANIES.length;
  const priority = rng.chance(0.3) ? rng.int(1, 3) : 0;
  return 1 + (team * (COMPANIES.length + 1) + customer) * 4 + priority;
}

/** Every metadata code there is: 0 to METADATA_CODES - 1. */
export const METADATA_CODES = 1 + TEAMS.length * (COMPANIES.length + 1) * 4;

export function metadataOf(code: number): Record<string, unknown> | null {
  if (code === 0) return null;
  const priority = (code - 1) % 4;
  const pair = Math.floor((code - 1) / 4);
  const customer = pair % (COMPANIES.length + 1);
  const out: Record<string, unknown> = { team: TEAMS[Math.floor(pair / (COMPANIES.length + 1))] };
  if (customer < COMPANIES.length) out['customer'] = COMPANIES[customer];
  if (priority > 0) out['priority'] = priority;
  return out;
}

function requestedLanguage(params: unknown): string {
  const p = obj(params);
  if (typeof p['language'] === 'string') return p['language'];
  const languages = obj(p['language_config'])['languages'];
  return Array.isArray(languages) && typeof languages[0] === 'string' ? languages[0] : 'en';
}

function after(createdAt: unknown, seconds: number): string {
  const base = Date.parse(String(createdAt));
  return new Date((Number.isNaN(base) ? Date.now() : base) + Math.round(seconds * 1000)).toISOString();
}
