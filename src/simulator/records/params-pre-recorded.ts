/**
 * request_params of a pre-recorded job (spec 2.4): every switch, each config object when its
 * switch is on, plus keys the spec does not list but the real service sends (model,
 * speaker_reidentification, skip_channel_deduplication, ...).
 */

import type { Rng } from '../rng.js';
import {
  feature,
  languageConfig,
  type Richness,
  spellingConfig,
  summarizationConfig,
  switchOn,
  translationConfig,
  vocabularyConfig,
} from './params-shared.js';

export interface PreRecordedContext {
  readonly fileId: string;
  readonly language: string;
  readonly richness: Richness;
}

export function preRecordedParams(rng: Rng, ctx: PreRecordedContext): Record<string, unknown> {
  const on = (): boolean => switchOn(rng, ctx.richness);
  const p: Record<string, unknown> = {
    audio_url: rng.chance(0.5)
      ? `https://api.example.test/file/${ctx.fileId}`
      : `https://storage.example.test/recordings/${ctx.fileId}.mp3`,
  };
  if (on()) p['context_prompt'] = 'Weekly call between the account team and a customer.';
  feature(p, 'custom_vocabulary', on(), () => vocabularyConfig(rng));
  p['detect_language'] = rng.chance(0.5);
  feature(
    p,
    'enable_code_switching',
    on(),
    () => ({ languages: [ctx.language, 'en'] }),
    'code_switching_config',
  );
  if (!p['detect_language'] || rng.chance(0.3)) p['language'] = ctx.language;
  const callback = on();
  if (callback || rng.chance(0.2)) p['callback_url'] = 'https://hooks.example.test/transcripts';
  feature(p, 'callback', callback, () => ({
    url: 'https://hooks.example.test/transcripts',
    method: rng.pick(['POST', 'PUT']),
  }));
  feature(p, 'subtitles', on(), () => subtitlesConfig(rng));
  feature(p, 'diarization', on(), () => diarizationConfig(rng));
  feature(p, 'translation', on(), () => translationConfig(rng, ctx.language));
  feature(p, 'summarization', on(), () => summarizationConfig(rng));
  p['moderation'] = on();
  p['named_entity_recognition'] = on();
  p['chapterization'] = on();
  p['name_consistency'] = on();
  feature(p, 'custom_spelling', on(), () => spellingConfig(rng));
  feature(p, 'structured_data_extraction', on(), () => ({
    classes: rng.some(['person', 'organization', 'date', 'amount', 'product'], 1, 3),
  }));
  p['sentiment_analysis'] = on();
  feature(p, 'audio_to_llm', on(), () => ({
    prompts: rng.some(
      ['Summarize the call in one line.', 'List the action items.', 'Who talked most?'],
      1,
      3,
    ),
  }));
  p['sentences'] = on();
  p['display_mode'] = on();
  p['punctuation_enhanced'] = rng.chance(0.3);
  p['language_config'] = languageConfig(rng, ctx.language);
  // Keys outside the spec, as the real service sends them.
  p['model'] = rng.pick(['solaria-1', 'solaria-1', 'solaria-3']);
  p['speaker_reidentification'] = on();
  p['skip_channel_deduplication'] = rng.chance(0.1);
  p['diarization_enhanced'] = rng.chance(0.1);
  p['audio_enhancer'] = rng.chance(0.3);
  p['accurate_words_timestamps'] = rng.chance(0.2);
  return p;
}

function subtitlesConfig(rng: Rng): Record<string, unknown> {
  return {
    formats: rng.some(['srt', 'vtt'], 1, 2),
    minimum_duration: 1,
    maximum_duration: rng.pick([6, 10, 15]),
    maximum_characters_per_row: rng.pick([32, 42]),
    maximum_rows_per_caption: rng.pick([1, 2]),
    style: rng.pick(['default', 'compliance']),
  };
}

function diarizationConfig(rng: Rng): Record<string, unknown> {
  const speakers = rng.int(2, 4);
  return { number_of_speakers: speakers, min_speakers: 1, max_speakers: speakers + rng.int(0, 2) };
}
