/**
 * Which result modules a job gets, read back from its request_params, so a result always
 * reflects what was requested (also when a queued job is advanced to done later).
 */
import type { JobKind } from '../types.js';

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
