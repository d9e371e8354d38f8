/**
 * Transcripts: utterances of words on a timeline that fits the audio duration, their translations
 * (same timings, other words), subtitles and sentences. Times are seconds with millisecond
 * precision, increasing; confidences are in [0.3, 1] with two decimals.
 */
import { type Rng, round } from '../rng.js';
import { wordsOf } from './vocabulary.js';

interface Word {
  word: string;
  start: number;
  end: number;
  confidence: number;
}

export type Utterance = ReturnType<typeof utterance>;

export interface TranscriptPlan {
  readonly language: string;
  readonly utterances: number;
  /** Mean words per utterance (+-50% each). */
  readonly wordsPerUtterance: number;
  /** Seconds of audio the timeline is stretched to fit. */
  readonly duration: number;
  readonly speakers: number;
  readonly channels: number;
}

/** Mean seconds per word including its gap, and per pause between utterances; used to plan durations. */
const WORD_SECONDS = 0.42;
const PAUSE_SECONDS = 1.05;

/** A plausible audio duration (seconds) for this many utterances and words. */
export function plannedDuration(rng: Rng, utterances: number, wordsPerUtterance: number): number {
  const speech = utterances * (wordsPerUtterance * WORD_SECONDS + PAUSE_SECONDS);
  return round(Math.max(1.5, speech * rng.float(0.9, 1.25)) + rng.float(0.5, 3), 6);
}

export function buildUtterances(rng: Rng, plan: TranscriptPlan): Utterance[] {
  // First the raw timeline (word counts, starts and ends), then objects with times scaled to fit.
  const counts: number[] = [];
  const times: number[] = [];
  let t = rng.float(0.2, 1.5);
  const lead = t;
  for (let u = 0; u < plan.utterances; u++) {
    const n = rng.around(plan.wordsPerUtterance);
    counts.push(n);
    for (let w = 0; w < n; w++) {
      const end = t + rng.float(0.12, 0.55);
      times.push(t, end);
      t = end + rng.float(0.02, 0.15);
    }
    t += rng.float(0.3, 1.8);
  }
  const last = times.at(-1) ?? lead;
  const scale = Math.max(0.05, plan.duration - 0.3 - lead) / Math.max(0.001, last - lead);
  const at = (raw: number): number => round(lead + (raw - lead) * scale);
  const vocabulary = wordsOf(plan.language);
  const utterances: Utterance[] = [];
  let speaker = 0;
  let index = 0;
  for (const n of counts) {
    if (plan.speakers > 1 && rng.chance(0.6))
      speaker = (speaker + rng.int(1, plan.speakers - 1)) % plan.speakers;
    const words: Word[] = [];
    for (let w = 0; w < n; w++, index += 2) {
      const confidence = round(rng.float(0.3, 1), 2);
      words.push({
        word: rng.pick(vocabulary),
        start: at(times[index]!),
        end: at(times[index + 1]!),
        confidence,
      });
    }
    const channel = plan.channels > 1 ? speaker % plan.channels : 0;
    utterances.push(utterance(words, plan.language, speaker, channel));
  }
  return utterances;
}

function utterance(words: Word[], language: string, speaker: number, channel: number) {
  const confidence =
    words.length === 0 ? 0 : round(words.reduce((s, w) => s + w.confidence, 0) / words.length, 2);
  return {
    words,
    text: words.map((w) => w.word).join(' '),
    language,
    start: words[0]?.start ?? 0,
    end: words.at(-1)?.end ?? 0,
    speaker,
    channel,
    confidence,
  };
}

/** The same timeline in another language: each word replaced, timings kept. */
export function translateUtterances(rng: Rng, source: readonly Utterance[], language: string): Utterance[] {
  const vocabulary = wordsOf(language);
  return source.map((u) => {
    const words = u.words.map((w) => ({ ...w, word: rng.pick(vocabulary) }));
    return utterance(words, language, u.speaker, u.channel);
  });
}

export function fullTranscript(utterances: readonly Utterance[]): string {
  return utterances.map((u) => u.text).join(' ');
}

/** Subtitles in each requested format (`srt`, `vtt`), one cue per utterance. */
export function subtitles(utterances: readonly Utterance[], formats: readonly string[]) {
  return formats.map((format) => {
    const vtt = format === 'vtt';
    const cues = utterances.map(
      (u, i) => `${i + 1}\n${clock(u.start, vtt)} --> ${clock(u.end, vtt)}\n${u.text}\n`,
    );
    return { format, subtitles: (vtt ? 'WEBVTT\n\n' : '') + cues.join('\n') };
  });
}

function clock(seconds: number, vtt: boolean): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const hms = `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}`;
  return `${hms}${vtt ? '.' : ','}${pad(ms % 1000, 3)}`;
}

/** Sentences: each utterance's text, capitalised and closed with a full stop. */
export function sentencesOf(utterances: readonly Utterance[]): string[] {
  return utterances.map((u) => (u.text ? `${u.text.charAt(0).toUpperCase()}${u.text.slice(1)}.` : ''));
}
