/**
 * request_params of a live job (spec 2.5): audio format, pre/realtime/post processing, the nine
 * message flags of messages_config and callback_config (spec 6).
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

export interface LiveContext {
  readonly language: string;
  readonly channels: number;
  readonly richness: Richness;
}

export function liveParams(rng: Rng, ctx: LiveContext): Record<string, unknown> {
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
    realtime_processing: realtimeProcessing(rng, ctx, on),
    post_processing: postProcessing(rng, on),
    messages_config: messageFlags(rng),
    callback,
    ...(callback
      ? { callback_config: { url: 'https://hooks.example.test/live', ...messageFlags(rng) } }
      : {}),
  };
}

function realtimeProcessing(rng: Rng, ctx: LiveContext, on: () => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  feature(out, 'custom_vocabulary', on(), () => vocabularyConfig(rng));
  feature(out, 'custom_spelling', on(), () => spellingConfig(rng));
  feature(out, 'translation', on(), () => translationConfig(rng, ctx.language));
  out['named_entity_recognition'] = on();
  out['sentiment_analysis'] = on();
  return out;
}

function postProcessing(rng: Rng, on: () => boolean): Record<string, unknown> {
  const summarization = on();
  return {
    summarization,
    ...(summarization ? { summarization_config: summarizationConfig(rng) } : {}),
    chapterization: on(),
  };
}

function messageFlags(rng: Rng): Record<string, boolean> {
  const flags: Record<string, boolean> = {};
  for (const flag of MESSAGE_FLAGS) flags[flag] = rng.chance(0.6);
  return flags;
}
