/**
 * The result of a done job: metadata, transcription and one module result per requested feature
 * (spec 2.6 for pre-recorded, 2.7 for live, which adds `messages`).
 */
import { type Rng, round } from '../rng.js';
import type { JobKind } from '../types.js';
import { addModules, type Features, liveMessages, moduleResult } from './modules.js';
import {
  buildUtterances,
  fullTranscript,
  sentencesOf,
  subtitles,
  translateUtterances,
  type Utterance,
} from './transcript.js';

export interface ResultContext {
  readonly id: string;
  readonly kind: JobKind;
  readonly features: Features;
  readonly language: string;
  readonly utterances: number;
  readonly wordsPerUtterance: number;
  /** file.audio_duration, seconds; the result's own measure differs slightly, as in the real service. */
  readonly audioDuration: number;
  readonly channels: number;
}

/** Share of translation entries (one per target language) that fail on their own. */
const TRANSLATION_FAILURE_RATE = 0.05;

/** Billing minimum, seconds: short files are billed as this much audio. */
const MIN_BILLED_SECONDS = 5;

export function buildResult(rng: Rng, ctx: ResultContext): Record<string, unknown> {
  const f = ctx.features;
  const audioDuration = round(Math.max(0.5, ctx.audioDuration - rng.float(0, 0.05)), 6);
  const speakers = f.diarization ?? (ctx.kind === 'live' ? 1 : rng.int(1, 2));
  const utterances = buildUtterances(rng, { ...ctx, duration: audioDuration, speakers });
  // Identical channels are billed once (number_of_distinct_channels), like the real service.
  const distinct = ctx.channels > 1 && rng.chance(0.5) ? 1 : ctx.channels;
  const result: Record<string, unknown> = {
    metadata: {
      audio_duration: audioDuration,
      number_of_distinct_channels: distinct,
      billing_time: Math.max(MIN_BILLED_SECONDS, Math.ceil(audioDuration)) * distinct,
      transcription_time:
        ctx.kind === 'live'
          ? round(audioDuration + rng.float(1, 40), 3)
          : round(audioDuration * rng.float(0.05, 0.3) + rng.float(1, 6), 3),
    },
    transcription: transcription(rng, ctx.language, utterances, f),
  };
  if (f.translation) result['translation'] = translation(rng, utterances, f);
  addModules(rng, result, utterances, f);
  if (ctx.kind === 'live') result['messages'] = liveMessages(rng, ctx.id, utterances);
  return result;
}

function transcription(rng: Rng, language: string, utterances: Utterance[], f: Features) {
  const out: Record<string, unknown> = {
    utterances,
    full_transcript: fullTranscript(utterances),
    languages: [language],
  };
  if (f.sentences) out['sentences'] = [moduleResult(rng, () => sentencesOf(utterances))];
  if (f.subtitles) out['subtitles'] = subtitles(utterances, f.subtitles);
  return out;
}

function translation(rng: Rng, utterances: Utterance[], f: Features): Record<string, unknown> {
  return moduleResult(rng, () =>
    (f.translation ?? []).map((language) => {
      if (rng.chance(TRANSLATION_FAILURE_RATE)) return failedTranslation(language);
      const translated = translateUtterances(rng, utterances, language);
      const entry: Record<string, unknown> = {
        error: null,
        full_transcript: fullTranscript(translated),
        languages: [language],
        utterances: translated,
      };
      if (f.sentences) entry['sentences'] = [moduleResult(rng, () => sentencesOf(translated))];
      if (f.subtitles) entry['subtitles'] = subtitles(translated, f.subtitles);
      return entry;
    }),
  );
}

/** An entry whose language failed: the error object of spec 2.8 inside the entry, no utterances. */
function failedTranslation(language: string): Record<string, unknown> {
  return {
    error: { status_code: 500, exception: 'TranslationError', message: `translation to ${language} failed` },
    full_transcript: '',
    languages: [language],
    utterances: [],
  };
}
