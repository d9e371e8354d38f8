/**
 * The result modules of a job: which it gets, read back from its request_params (so a result
 * always reflects what was requested), the module-result wrapper of spec 2.8 and the contents of
 * each. A few modules fail (success false, results null, an error object).
 */
import { type Rng, round } from '../rng.js';
import type { JobKind } from '../types.js';
import { fullTranscript, sentencesOf, type Utterance } from './transcript.js';
import { COMPANIES, PEOPLE } from './vocabulary.js';

/** Each result module's settings when the request asked for it; null (or false) when it did not. */
export type Features = Readonly<ReturnType<typeof preRecordedFeatures>>;

type Obj = Record<string, unknown>;

/** `value` when it is a plain object, else an empty one. */
export function obj(value: unknown): Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Obj) : {};
}

function strings(value: unknown): readonly string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Features of a job; a job without request_params (some failed ones) has none. */
export function featuresOf(kind: JobKind, requestParams: unknown): Features {
  const p = obj(requestParams);
  return kind === 'live' ? liveFeatures(p) : preRecordedFeatures(p);
}

function preRecordedFeatures(p: Obj) {
  const on = (name: string): boolean => p[name] === true;
  const config = (name: string): Obj => obj(p[`${name}_config`]);
  return {
    subtitles: on('subtitles') ? strings(config('subtitles')['formats']) : null,
    diarization: on('diarization') ? Number(config('diarization')['number_of_speakers'] ?? 2) || 2 : null,
    translation: on('translation') ? strings(config('translation')['target_languages']) : null,
    summarization: on('summarization'),
    moderation: on('moderation'),
    namedEntityRecognition: on('named_entity_recognition'),
    nameConsistency: on('name_consistency'),
    speakerReidentification: on('speaker_reidentification'),
    structuredDataExtraction: on('structured_data_extraction')
      ? strings(config('structured_data_extraction')['classes'])
      : null,
    sentimentAnalysis: on('sentiment_analysis'),
    audioToLlm: on('audio_to_llm') ? strings(config('audio_to_llm')['prompts']) : null,
    sentences: on('sentences'),
    displayMode: on('display_mode'),
    chapterization: on('chapterization'),
  };
}

function liveFeatures(p: Obj): Features {
  const realtime = obj(p['realtime_processing']);
  const post = obj(p['post_processing']);
  // A live request has none of the pre-recorded switches: every feature off but the live ones.
  return {
    ...preRecordedFeatures({}),
    translation:
      realtime['translation'] === true
        ? strings(obj(realtime['translation_config'])['target_languages'])
        : null,
    namedEntityRecognition: realtime['named_entity_recognition'] === true,
    sentimentAnalysis: realtime['sentiment_analysis'] === true,
    summarization: post['summarization'] === true,
    chapterization: post['chapterization'] === true,
  };
}

const MODULE_FAILURE_RATE = 0.04;

/** Wraps `results` (or `entity` for named_entity_recognition); a drawn failure replaces it with an error. */
export function moduleResult(
  rng: Rng,
  results: () => unknown,
  key: 'results' | 'entity' = 'results',
): Record<string, unknown> {
  const exec_time = round(rng.float(0.05, 12), 6);
  if (rng.chance(MODULE_FAILURE_RATE)) {
    const [status_code, exception] = rng.pick([
      [500, 'InternalServerError'],
      [422, 'UnprocessableEntityException'],
      [504, 'GatewayTimeoutException'],
    ] as const);
    return {
      success: false,
      is_empty: true,
      [key]: null,
      exec_time,
      error: { status_code, exception, message: `the module failed with ${exception}` },
    };
  }
  const value = results();
  const empty = value === '' || (Array.isArray(value) && value.length === 0);
  return { success: true, is_empty: empty, [key]: value, exec_time, error: null };
}

function summaryOf(rng: Rng, utterances: readonly Utterance[]): string {
  const words = fullTranscript(utterances).split(' ').slice(0, 40).join(' ');
  return `${rng.pick(['The call covered', 'The speakers discussed', 'Main topics:'])} ${words}.`;
}

function entitiesOf(rng: Rng, utterances: readonly Utterance[]): string {
  const count = Math.min(utterances.length, rng.int(0, 4));
  const entities = [];
  for (let i = 0; i < count; i++) {
    const u = utterances[i]!;
    const person = rng.chance(0.5);
    entities.push({
      entity_type: person ? 'PERSON' : 'ORGANIZATION',
      text: person ? rng.pick(PEOPLE) : rng.pick(COMPANIES),
      start: u.start,
      end: u.end,
    });
  }
  // As the spec shows them: a JSON string in `entity` (newer records of the service carry an array in `results`).
  return JSON.stringify(entities);
}

function speakerNames(rng: Rng, utterances: readonly Utterance[]): string {
  const speakers = [...new Set(utterances.map((u) => u.speaker))].sort((a, b) => a - b);
  return speakers.map((s) => `Speaker ${s}: ${rng.pick(PEOPLE)}`).join('\n');
}

function structuredData(rng: Rng, classes: readonly string[]): string {
  const value = (c: string): string =>
    c === 'person' ? rng.pick(PEOPLE) : c === 'organization' ? rng.pick(COMPANIES) : `${c}-${rng.int(1, 99)}`;
  return JSON.stringify(Object.fromEntries(classes.map((c) => [c, [value(c)]])));
}

function sentimentOf(rng: Rng, utterances: readonly Utterance[]): string {
  return JSON.stringify(
    utterances.slice(0, 5).map((u) => ({
      text: u.text,
      sentiment: rng.pick(['positive', 'neutral', 'negative']),
      emotion: rng.pick(['neutral', 'joy', 'surprise', 'frustration']),
      start: u.start,
      end: u.end,
      channel: u.channel,
      speaker: u.speaker,
    })),
  );
}

function audioToLlm(rng: Rng, prompts: readonly string[], utterances: readonly Utterance[]) {
  return prompts.map((prompt) =>
    moduleResult(rng, () => ({ prompt, response: summaryOf(rng, utterances.slice(0, 3)) })),
  );
}

/** Chapters: the spec leaves the object's shape open; this one holds a list of titled spans. */
function chaptersOf(rng: Rng, utterances: readonly Utterance[]): Record<string, unknown> {
  const size = Math.max(1, Math.ceil(utterances.length / rng.int(1, 4)));
  const chapters = [];
  for (let i = 0; i < utterances.length; i += size) {
    const span = utterances.slice(i, i + size);
    chapters.push({
      headline: sentencesOf(span.slice(0, 1))[0] ?? '',
      summary: summaryOf(rng, span),
      keywords: [...new Set(span.flatMap((u) => u.words.slice(0, 2).map((w) => w.word)))].slice(0, 5),
      start: span[0]?.start ?? 0,
      end: span.at(-1)?.end ?? 0,
    });
  }
  return { chapters };
}

/** Live session messages (JSON strings, as the service stores them). */
export function liveMessages(rng: Rng, sessionId: string, utterances: readonly Utterance[]): string[] {
  const messages = [JSON.stringify({ type: 'start_session', session_id: sessionId })];
  for (const u of utterances.slice(0, rng.int(0, 3))) {
    const data = { is_final: true, utterance: { text: u.text, start: u.start, end: u.end } };
    messages.push(JSON.stringify({ type: 'transcript', session_id: sessionId, data }));
  }
  messages.push(JSON.stringify({ type: 'end_session', session_id: sessionId }));
  return messages;
}

/** One module result per requested feature; a live job's features name only some. */
export function addModules(
  rng: Rng,
  result: Record<string, unknown>,
  utterances: Utterance[],
  f: Features,
): void {
  const add = (name: string, results: () => unknown, key: 'results' | 'entity' = 'results'): void => {
    result[name] = moduleResult(rng, results, key);
  };
  if (f.summarization) add('summarization', () => summaryOf(rng, utterances));
  if (f.moderation)
    add('moderation', () => rng.pick(['No harmful content detected.', 'Mild profanity at 00:01:12.']));
  if (f.namedEntityRecognition) add('named_entity_recognition', () => entitiesOf(rng, utterances), 'entity');
  if (f.nameConsistency) add('name_consistency', () => fullTranscript(utterances.slice(0, 3)));
  if (f.speakerReidentification) add('speaker_reidentification', () => speakerNames(rng, utterances));
  const { structuredDataExtraction: classes, audioToLlm: prompts } = f;
  if (classes) add('structured_data_extraction', () => structuredData(rng, classes));
  if (f.sentimentAnalysis) add('sentiment_analysis', () => sentimentOf(rng, utterances));
  if (prompts) add('audio_to_llm', () => audioToLlm(rng, prompts, utterances));
  if (f.sentences) add('sentences', () => sentencesOf(utterances));
  if (f.displayMode) add('display_mode', () => utterances.map((u) => `Speaker ${u.speaker}: ${u.text}`));
  if (f.chapterization) add('chapterization', () => chaptersOf(rng, utterances));
  if (f.diarization !== null) add('diarization', () => utterances);
}
