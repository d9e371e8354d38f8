/**
 * request_params of a job, as the service stores them: a pre-recorded job's (spec 2.4, plus keys
 * the real service sends beyond the spec) and a live job's (spec 2.5), with the pieces both share.
 */
import { type Rng, round } from '../rng.js';
import { COMPANIES, LANGUAGES, PEOPLE } from './vocabulary.js';

/** What a job's request_params follow besides their own draws; each kind reads the fields it has. */
interface ParamsContext {
  readonly fileId: string;
  readonly language: string;
  readonly channels: number;
  readonly richness: Richness;
}

export function preRecordedParams(rng: Rng, ctx: ParamsContext): Record<string, unknown> {
  const on = (): boolean => switchOn(rng, ctx.richness);
  const p: Record<string, unknown> = {
    audio_url: rng.chance(0.5)
      ? `https://api.example.test/file/${ctx.fileId}`
      : `https://storage.example.test/recordings/${ctx.fileId}.mp3`,
  };
  if (on()) p['context_prompt'] = 'Weekly call between the account team and a customer.';
  feature(p, 'custom_vocabulary', on(), () => vocabularyConfig(rng));
  p['detect_language'] = rng.chance(0.5);
  p['enable_code_switching'] = on();
  if (p['enable_code_switching']) p['code_switching_config'] = { languages: [ctx.language, 'en'] };
  if (!p['detect_language'] || rng.chance(0.3)) p['language'] = ctx.language;
  const callback = on();
  if (callback || rng.chance(0.2)) p['callback_url'] = 'https://hooks.example.test/transcripts';
  feature(p, 'callback', callback, () => ({
    url: 'https://hooks.example.test/transcripts',
    method: rng.pick(['POST', 'PUT']),
  }));
  feature(p, 'subtitles', on(), () => ({
    formats: rng.some(['srt', 'vtt'], 1, 2),
    minimum_duration: 1,
    maximum_duration: rng.pick([6, 10, 15]),
    maximum_characters_per_row: rng.pick([32, 42]),
    maximum_rows_per_caption: rng.pick([1, 2]),
    style: rng.pick(['default', 'compliance']),
  }));
  feature(p, 'diarization', on(), () => {
    const speakers = rng.int(2, 4);
    return { number_of_speakers: speakers, min_speakers: 1, max_speakers: speakers + rng.int(0, 2) };
  });
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
  feature(p, 'audio_to_llm', on(), () => ({ prompts: rng.some(PROMPTS, 1, 3) }));
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

const PROMPTS = ['Summarize the call in one line.', 'List the action items.', 'Who talked most?'];

const MESSAGE_FLAGS = [
  'receive_partial_transcripts',
  'receive_final_transcripts',
  'receive_speech_events',
  'receive_pre_processing_events',
  'receive_realtime_processing_events',
  'receive_post_processing_events',
  'receive_acknowledgments',
  'receive_errors',
  'receive_lifecycle_events',
] as const;

export function liveParams(rng: Rng, ctx: ParamsContext): Record<string, unknown> {
  const on = (): boolean => switchOn(rng, ctx.richness);
  const callback = on();
  return {
    encoding: rng.pick(['wav/pcm', 'wav/alaw', 'wav/ulaw']),
    bit_depth: rng.pick([8, 16, 16, 24, 32]),
    sample_rate: rng.pick([8000, 16000, 16000, 44100, 48000]),
    channels: ctx.channels,
    model: 'solaria-1',
    endpointing: rng.pick([0.01, 0.05, 0.1, 0.3]),
    maximum_duration_without_endpointing: rng.pick([5, 10, 30, 60]),
    language_config: languageConfig(rng, ctx.language),
    pre_processing: { audio_enhancer: rng.chance(0.3), speech_threshold: rng.pick([0.3, 0.5, 0.6, 0.8]) },
    realtime_processing: realtimeProcessing(rng, ctx.language, on),
    post_processing: postProcessing(rng, on),
    messages_config: messageFlags(rng),
    callback,
    ...(callback
      ? { callback_config: { url: 'https://hooks.example.test/live', ...messageFlags(rng) } }
      : {}),
  };
}

function realtimeProcessing(rng: Rng, language: string, on: () => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  feature(out, 'custom_vocabulary', on(), () => vocabularyConfig(rng));
  feature(out, 'custom_spelling', on(), () => spellingConfig(rng));
  feature(out, 'translation', on(), () => translationConfig(rng, language));
  out['named_entity_recognition'] = on();
  out['sentiment_analysis'] = on();
  return out;
}

function postProcessing(rng: Rng, on: () => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  feature(out, 'summarization', on(), () => summarizationConfig(rng));
  out['chapterization'] = on();
  return out;
}

function messageFlags(rng: Rng): Record<string, boolean> {
  const flags: Record<string, boolean> = {};
  for (const flag of MESSAGE_FLAGS) flags[flag] = rng.chance(0.6);
  return flags;
}

/**
 * How feature-rich a job is: some jobs ask for every feature, some for none, most for a random
 * few, so a dataset covers both extremes.
 */
export type Richness = 'none' | 'all' | number;

export function drawRichness(rng: Rng): Richness {
  return rng.weighted<Richness>([
    ['none', 0.12],
    ['all', 0.08],
    [rng.float(0.2, 0.6), 0.8],
  ]);
}

function switchOn(rng: Rng, richness: Richness): boolean {
  if (richness === 'none') return false;
  if (richness === 'all') return true;
  return rng.chance(richness);
}

/** Sets a switch and, when it is on, its `<name>_config` object. */
function feature(params: Record<string, unknown>, name: string, on: boolean, config: () => object): void {
  params[name] = on;
  if (on) params[`${name}_config`] = config();
}

function vocabularyConfig(rng: Rng): Record<string, unknown> {
  // Both element forms of the spec: a plain string, the short object {value}, the full object.
  const vocabulary: unknown[] = [rng.pick(COMPANIES), { value: rng.pick(COMPANIES) }];
  if (rng.chance(0.7)) {
    vocabulary.push({
      value: rng.pick(PEOPLE).split(' ')[1],
      pronunciations: [rng.pick(['mar-tan', 'kel-er', 'doo-bwa', 'ra-mos'])],
      intensity: round(rng.float(0.1, 1), 1),
      language: rng.pick(LANGUAGES),
    });
  }
  return { vocabulary, default_intensity: round(rng.float(0.2, 0.8), 1) };
}

function spellingConfig(rng: Rng): Record<string, unknown> {
  const name = rng.pick(COMPANIES);
  return { spelling_dictionary: { [name]: [name.toLowerCase(), name.replace(' ', '')] } };
}

function translationConfig(rng: Rng, source: string): Record<string, unknown> {
  const targets = LANGUAGES.filter((l) => l !== source);
  return {
    target_languages: rng.some(targets, 1, 2),
    model: rng.pick(['base', 'enhanced']),
    match_original_utterances: rng.chance(0.8),
    lipsync: rng.chance(0.5),
    context_adaptation: rng.chance(0.5),
    context: rng.chance(0.5) ? '' : 'A business call between colleagues.',
    informal: rng.chance(0.3),
  };
}

function languageConfig(rng: Rng, language: string): Record<string, unknown> {
  return { languages: rng.chance(0.4) ? [] : [language], code_switching: rng.chance(0.3) };
}

function summarizationConfig(rng: Rng): Record<string, unknown> {
  return { type: rng.pick(['general', 'bullet_points', 'concise']) };
}
