/**
 * Shapes shared by both kinds of job (spec 2.3, 2.6, 2.8). Every field may be absent or null (the
 * service omits what was not requested, and real records carry nulls the spec does not show), but
 * must have its type when present. Objects are loose: unknown fields are kept, never an error.
 * Integers stored in INTEGER columns are checked as 32-bit so a bad value quarantines its record
 * instead of failing the load of its whole batch.
 */
import { z } from 'zod';

/**
 * Words come by the million (decision 0008), so a word array is checked by a hand-written loop
 * that accepts exactly what `wordSchema` accepts; only a word the loop rejects goes through zod,
 * which then reports the issues as full validation would.
 */
export const wordSchema = z.looseObject({
  word: z.string().nullish(),
  start: z.number().nullish(),
  end: z.number().nullish(),
  confidence: z.number().nullish(),
});

const slowWords = z.array(wordSchema).nullish();

function isOptionalNumber(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'number' && Number.isFinite(value));
}

/** True when `wordSchema` would accept `value`; kept in step with it by a property test. */
export function isValidWord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const w = value as Record<string, unknown>;
  const word = w['word'];
  return (
    (word === undefined || word === null || typeof word === 'string') &&
    isOptionalNumber(w['start']) &&
    isOptionalNumber(w['end']) &&
    isOptionalNumber(w['confidence'])
  );
}

/** An optional array of words, checked by the fast loop; parsed, it is the input array itself. */
export const wordsSchema = z
  .custom<z.infer<typeof wordSchema>[] | null | undefined>()
  .superRefine((value, ctx) => {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) {
      for (const issue of slowWords.safeParse(value).error?.issues ?? []) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path, input: value });
      }
      return;
    }
    for (let i = 0; i < value.length; i++) {
      const word: unknown = value[i];
      if (isValidWord(word)) continue;
      for (const issue of wordSchema.safeParse(word).error?.issues ?? []) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: [i, ...issue.path], input: word });
      }
    }
  });

export const int32 = z.int32().nullish();
export const num = z.number().nullish();
export const str = z.string().nullish();
export const bool = z.boolean().nullish();
export const strings = z.array(z.string()).nullish();
/** A free-form object (custom_metadata, post_session_metadata, chapterization results). */
export const freeObject = z.record(z.string(), z.unknown()).nullish();

export const errorObjectSchema = z.looseObject({
  status_code: int32,
  exception: str,
  message: str,
});

export const utteranceSchema = z.looseObject({
  start: num,
  end: num,
  confidence: num,
  channel: int32,
  speaker: int32,
  language: str,
  text: str,
  words: wordsSchema.optional(),
});

export const fileSchema = z.looseObject({
  id: str,
  filename: str,
  source: str,
  audio_duration: num,
  number_of_channels: int32,
});

/** The members of the wrapper every feature result comes in. */
const moduleFields = { success: bool, is_empty: bool, exec_time: num, error: errorObjectSchema.nullish() };

/** A feature result in its wrapper; `results` varies by feature. */
export function moduleResult<T extends z.ZodType>(results: T) {
  return z.looseObject({ ...moduleFields, results: results.nullish() });
}

const sentencesSchema = z.array(moduleResult(z.array(z.string()))).nullish();
const subtitlesSchema = z.array(z.looseObject({ format: str, subtitles: str })).nullish();

const metadataSchema = z.looseObject({
  audio_duration: num,
  number_of_distinct_channels: int32,
  billing_time: num,
  transcription_time: num,
});

export const transcriptionSchema = z.looseObject({
  full_transcript: str,
  languages: strings,
  utterances: z.array(utteranceSchema).nullish(),
  sentences: sentencesSchema,
  subtitles: subtitlesSchema,
});

/** A translation: a transcription in another language, or the error that kept it from being made. */
export const translationEntrySchema = z.looseObject({
  error: errorObjectSchema.nullish(),
  ...transcriptionSchema.shape,
});

const textResult = moduleResult(z.string()).nullish();

/** Members of `result` common to both kinds (spec 2.7 lists the live ones; 2.6 adds more). */
const commonResultShape = {
  metadata: metadataSchema.nullish(),
  transcription: transcriptionSchema.nullish(),
  translation: moduleResult(z.array(translationEntrySchema)).nullish(),
  summarization: textResult,
  named_entity_recognition: z.looseObject({ ...moduleFields, entity: str }).nullish(),
  sentiment_analysis: textResult,
  chapterization: moduleResult(z.record(z.string(), z.unknown())).nullish(),
};

export const preRecordedResultSchema = z.looseObject({
  ...commonResultShape,
  moderation: textResult,
  name_consistency: textResult,
  speaker_reidentification: textResult,
  structured_data_extraction: textResult,
  audio_to_llm: moduleResult(z.array(moduleResult(z.looseObject({ prompt: str, response: str })))).nullish(),
  sentences: moduleResult(z.array(z.string())).nullish(),
  display_mode: moduleResult(z.array(z.string())).nullish(),
  diarization: moduleResult(z.array(utteranceSchema)).nullish(),
});

export const liveResultSchema = z.looseObject({
  ...commonResultShape,
  messages: strings,
});

/**
 * The members of `result` that are columns of `jobs`; every other member either result schema knows
 * is a feature module (a `module_results` row), as the loader's SQL and docs/schema.md name them
 * (test/unit/normalize/record-contract.test.ts checks both).
 */
export const RESULT_COLUMNS = ['metadata', 'transcription'] as const;

type ResultMember = keyof typeof preRecordedResultSchema.shape | keyof typeof liveResultSchema.shape;
type FeatureModule = Exclude<ResultMember, (typeof RESULT_COLUMNS)[number]>;

/** Every module either kind's result schema names, pre-recorded's first, each once, in schema order. */
export const FEATURE_MODULES: readonly FeatureModule[] = [
  ...new Set([...Object.keys(preRecordedResultSchema.shape), ...Object.keys(liveResultSchema.shape)]),
].filter((name): name is FeatureModule => !(RESULT_COLUMNS as readonly string[]).includes(name));
