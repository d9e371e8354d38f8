/**
 * `request_params` of both kinds (spec 2.4, 2.5). Stored whole as JSON, so these schemas only make
 * sure the documented fields have their documented types; real records carry undocumented keys
 * (speaker_reidentification, diarization_enhanced, ...) and open values (model: solaria-1, ...),
 * which loose objects and plain strings keep.
 */
import { z } from 'zod';
import { bool, int32, num, str, strings } from './shapes.js';

const vocabularyEntry = z.union([
  z.string(),
  z.looseObject({ value: z.string(), pronunciations: strings, intensity: num, language: str }),
]);

const customVocabularyConfig = z.looseObject({
  vocabulary: z.array(vocabularyEntry).nullish(),
  default_intensity: num,
});
const customSpellingConfig = z.looseObject({
  spelling_dictionary: z.record(z.string(), z.array(z.string())).nullish(),
});
const translationConfig = z.looseObject({
  target_languages: strings,
  model: str,
  match_original_utterances: bool,
  lipsync: bool,
  context_adaptation: bool,
  context: str,
  informal: bool,
});
const languageConfig = z.looseObject({ languages: strings, code_switching: bool });
const summarizationConfig = z.looseObject({ type: str });

/** The nine message flags of spec section 6. */
const messageFlags = {
  receive_partial_transcripts: bool,
  receive_final_transcripts: bool,
  receive_speech_events: bool,
  receive_pre_processing_events: bool,
  receive_realtime_processing_events: bool,
  receive_post_processing_events: bool,
  receive_acknowledgments: bool,
  receive_errors: bool,
  receive_lifecycle_events: bool,
};

export const preRecordedParamsSchema = z.looseObject({
  audio_url: str,
  context_prompt: str,
  custom_vocabulary: bool,
  custom_vocabulary_config: customVocabularyConfig.nullish(),
  detect_language: bool,
  enable_code_switching: bool,
  code_switching_config: z.looseObject({ languages: strings }).nullish(),
  language: str,
  callback_url: str,
  callback: bool,
  callback_config: z.looseObject({ url: str, method: str }).nullish(),
  subtitles: bool,
  subtitles_config: z
    .looseObject({
      formats: strings,
      minimum_duration: num,
      maximum_duration: num,
      maximum_characters_per_row: int32,
      maximum_rows_per_caption: int32,
      style: str,
    })
    .nullish(),
  diarization: bool,
  diarization_config: z
    .looseObject({ number_of_speakers: int32, min_speakers: int32, max_speakers: int32 })
    .nullish(),
  translation: bool,
  translation_config: translationConfig.nullish(),
  summarization: bool,
  summarization_config: summarizationConfig.nullish(),
  moderation: bool,
  named_entity_recognition: bool,
  chapterization: bool,
  name_consistency: bool,
  custom_spelling: bool,
  custom_spelling_config: customSpellingConfig.nullish(),
  structured_data_extraction: bool,
  structured_data_extraction_config: z.looseObject({ classes: strings }).nullish(),
  sentiment_analysis: bool,
  audio_to_llm: bool,
  audio_to_llm_config: z.looseObject({ prompts: strings }).nullish(),
  sentences: bool,
  display_mode: bool,
  punctuation_enhanced: bool,
  language_config: languageConfig.nullish(),
});

export const liveParamsSchema = z.looseObject({
  encoding: str,
  bit_depth: int32,
  sample_rate: int32,
  channels: int32,
  model: str,
  endpointing: num,
  maximum_duration_without_endpointing: num,
  language_config: languageConfig.nullish(),
  pre_processing: z.looseObject({ audio_enhancer: bool, speech_threshold: num }).nullish(),
  realtime_processing: z
    .looseObject({
      custom_vocabulary: bool,
      custom_vocabulary_config: customVocabularyConfig.nullish(),
      custom_spelling: bool,
      custom_spelling_config: customSpellingConfig.nullish(),
      translation: bool,
      translation_config: translationConfig.nullish(),
      named_entity_recognition: bool,
      sentiment_analysis: bool,
    })
    .nullish(),
  post_processing: z
    .looseObject({
      summarization: bool,
      summarization_config: summarizationConfig.nullish(),
      chapterization: bool,
    })
    .nullish(),
  messages_config: z.looseObject(messageFlags).nullish(),
  callback: bool,
  callback_config: z.looseObject({ url: str, ...messageFlags }).nullish(),
});
