/**
 * Pieces of request_params shared by both kinds (spec 2.4, 2.5): the feature draw, vocabulary,
 * spelling and translation configs, language_config.
 */
import type { Rng } from '../rng.js';
import { COMPANIES, LANGUAGES, PEOPLE } from './vocabulary.js';

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

/** Draws a feature switch for this richness. */
export function switchOn(rng: Rng, richness: Richness): boolean {
  if (richness === 'none') return false;
  if (richness === 'all') return true;
  return rng.chance(richness);
}

/** Sets a switch and, when it is on, its config object (`<name>_config` unless named). */
export function feature(
  params: Record<string, unknown>,
  name: string,
  enabled: boolean,
  config: () => Record<string, unknown>,
  configName = `${name}_config`,
): void {
  params[name] = enabled;
  if (enabled) params[configName] = config();
}

export function vocabularyConfig(rng: Rng): Record<string, unknown> {
  // Both element forms of the spec: a plain string, the short object {value}, the full object.
  const vocabulary: unknown[] = [rng.pick(COMPANIES), { value: rng.pick(COMPANIES) }];
  if (rng.chance(0.7)) {
    vocabulary.push({
      value: rng.pick(PEOPLE).split(' ')[1],
      pronunciations: [rng.pick(['mar-tan', 'kel-er', 'doo-bwa', 'ra-mos'])],
      intensity: round1(rng.float(0.1, 1)),
      language: rng.pick(LANGUAGES),
    });
  }
  return { vocabulary, default_intensity: round1(rng.float(0.2, 0.8)) };
}

export function spellingConfig(rng: Rng): Record<string, unknown> {
  const name = rng.pick(COMPANIES);
  return { spelling_dictionary: { [name]: [name.toLowerCase(), name.replace(' ', '')] } };
}

export function translationConfig(rng: Rng, source: string): Record<string, unknown> {
  const targets = rng.some(
    LANGUAGES.filter((l) => l !== source),
    1,
    2,
  );
  return {
    target_languages: targets,
    model: rng.pick(['base', 'enhanced']),
    match_original_utterances: rng.chance(0.8),
    lipsync: rng.chance(0.5),
    context_adaptation: rng.chance(0.5),
    context: rng.chance(0.5) ? '' : 'A business call between colleagues.',
    informal: rng.chance(0.3),
  };
}

export function languageConfig(rng: Rng, language: string): Record<string, unknown> {
  return { languages: rng.chance(0.4) ? [] : [language], code_switching: rng.chance(0.3) };
}

export function summarizationConfig(rng: Rng): Record<string, unknown> {
  return { type: rng.pick(['general', 'bullet_points', 'concise']) };
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
