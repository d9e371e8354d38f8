import { describe, expect, it } from 'vitest';
import { generateDataset, type JobRecord, newestFirst } from '../../../src/simulator/index.js';

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj => (value ?? {}) as Obj;

const dataset = generateDataset({ seed: 11, preRecorded: 150, live: 150 });
const done = (kind: string) => dataset.filter((r) => r['status'] === 'done' && r['kind'] === kind);

const PRE_RECORDED_MODULES = [
  'metadata',
  'transcription',
  'translation',
  'summarization',
  'moderation',
  'named_entity_recognition',
  'name_consistency',
  'speaker_reidentification',
  'structured_data_extraction',
  'sentiment_analysis',
  'audio_to_llm',
  'sentences',
  'display_mode',
  'chapterization',
  'diarization',
];
const LIVE_MEMBERS = [
  'metadata',
  'transcription',
  'translation',
  'summarization',
  'named_entity_recognition',
  'sentiment_analysis',
  'chapterization',
  'messages',
];

function keysAcross(records: readonly JobRecord[], pick: (r: JobRecord) => unknown): Set<string> {
  return new Set(records.flatMap((r) => Object.keys(obj(pick(r)))));
}

describe('generated datasets', () => {
  it('are identical for the same seed and differ for another seed', () => {
    const options = { preRecorded: 20, live: 20, utterancesPerJob: 5 };
    const a = JSON.stringify(generateDataset({ ...options, seed: 3 }));
    expect(JSON.stringify(generateDataset({ ...options, seed: 3 }))).toBe(a);
    expect(JSON.stringify(generateDataset({ ...options, seed: 4 }))).not.toBe(a);
  });

  it('hold the requested number of jobs of each kind, newest first, inside the date range', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    const to = new Date('2026-01-08T00:00:00Z');
    const records = generateDataset({ seed: 5, preRecorded: 30, live: 12, from, to });
    expect(records.filter((r) => r['kind'] === 'pre-recorded')).toHaveLength(30);
    expect(records.filter((r) => r['kind'] === 'live')).toHaveLength(12);
    expect([...records].sort(newestFirst)).toEqual(records);
    for (const r of records) {
      expect(r['created_at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const ms = Date.parse(String(r['created_at']));
      expect(ms).toBeGreaterThanOrEqual(from.getTime());
      expect(ms).toBeLessThan(to.getTime());
      expect(r['id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r['request_id']).toMatch(/^G-[0-9a-f]{8}$/);
      expect(Number.isInteger(r['version'])).toBe(true);
    }
  });

  it('mix statuses like a busy account: mostly done, some error, queued and processing', () => {
    const records = generateDataset({ seed: 9, preRecorded: 500, live: 500, utterancesPerJob: 2 });
    const share = (status: string) => records.filter((r) => r['status'] === status).length / records.length;
    expect(share('done')).toBeGreaterThan(0.74);
    expect(share('done')).toBeLessThan(0.86);
    for (const status of ['error', 'queued', 'processing']) {
      expect(share(status)).toBeGreaterThan(0.03);
      expect(share(status)).toBeLessThan(0.12);
    }
  });

  it('give done jobs every result module across the dataset, some jobs all of them and some none', () => {
    expect([...keysAcross(done('pre-recorded'), (r) => r['result'])].sort()).toEqual(
      [...PRE_RECORDED_MODULES].sort(),
    );
    expect([...keysAcross(done('live'), (r) => r['result'])].sort()).toEqual([...LIVE_MEMBERS].sort());
    const moduleCounts = done('pre-recorded').map((r) => Object.keys(obj(r['result'])).length);
    expect(Math.max(...moduleCounts)).toBe(PRE_RECORDED_MODULES.length);
    expect(Math.min(...moduleCounts)).toBe(2);
  });

  it('wrap module results with success, is_empty, exec_time and error, failed ones with an error object', () => {
    const modules = done('pre-recorded').flatMap((r) =>
      Object.entries(obj(r['result']))
        .filter(([name]) => name !== 'metadata' && name !== 'transcription')
        .map(([, value]) => obj(value)),
    );
    for (const m of modules) {
      expect(typeof m['success']).toBe('boolean');
      expect(typeof m['is_empty']).toBe('boolean');
      expect(typeof m['exec_time']).toBe('number');
      if (m['success']) expect(m['error']).toBeNull();
      else expect(Object.keys(obj(m['error'])).sort()).toEqual(['exception', 'message', 'status_code']);
    }
    expect(modules.some((m) => m['success'] === false)).toBe(true);
    const ner = done('pre-recorded').map((r) => obj(obj(r['result'])['named_entity_recognition']));
    expect(ner.some((m) => typeof m['entity'] === 'string')).toBe(true);
  });

  it('build translations per target language (some failing on their own), audio_to_llm prompts and subtitles in srt and vtt', () => {
    const results = done('pre-recorded').map((r) => obj(r['result']));
    const translated = results.find((r) => obj(r['translation'])['success'] === true);
    const entries = obj(translated?.['translation'])['results'] as Obj[];
    const targets = obj(
      obj(done('pre-recorded').find((r) => obj(r['result']) === translated)?.['request_params'])[
        'translation_config'
      ],
    );
    expect(entries.map((e) => (e['languages'] as string[])[0])).toEqual(targets['target_languages']);
    expect(Array.isArray(entries[0]?.['utterances'])).toBe(true);
    const allEntries = [...done('pre-recorded'), ...done('live')]
      .map((r) => obj(r['result']))
      .flatMap((r) => (obj(r['translation'])['results'] as Obj[] | null) ?? []);
    expect(allEntries.some((e) => e['error'] === null)).toBe(true);
    expect(allEntries.some((e) => obj(e['error'])['status_code'] === 500)).toBe(true);
    const llm = results.map((r) => obj(r['audio_to_llm'])).find((m) => m['success'] === true);
    expect(Object.keys(obj((obj(llm)['results'] as Obj[])[0]?.['results'])).sort()).toEqual([
      'prompt',
      'response',
    ]);
    const formats = new Set(
      results.flatMap((r) => ((obj(r['transcription'])['subtitles'] as Obj[]) ?? []).map((s) => s['format'])),
    );
    expect(formats).toEqual(new Set(['srt', 'vtt']));
  });

  it('make utterance text the words joined, with times increasing inside the audio', () => {
    for (const r of done('pre-recorded').slice(0, 30)) {
      const utterances = obj(obj(r['result'])['transcription'])['utterances'] as Obj[];
      const duration = Number(obj(obj(r['result'])['metadata'])['audio_duration']);
      let last = 0;
      for (const u of utterances) {
        const words = u['words'] as Obj[];
        expect(u['text']).toBe(words.map((w) => w['word']).join(' '));
        for (const w of words) {
          expect(Number(w['start'])).toBeGreaterThanOrEqual(last);
          expect(Number(w['end'])).toBeGreaterThan(Number(w['start']));
          last = Number(w['end']);
        }
      }
      expect(last).toBeLessThanOrEqual(duration);
    }
  });

  it('size transcripts around the requested utterances and words', () => {
    const records = generateDataset({
      seed: 2,
      preRecorded: 200,
      live: 0,
      utterancesPerJob: 20,
      wordsPerUtterance: 10,
    });
    const transcripts = records
      .filter((r) => r['status'] === 'done')
      .map((r) => obj(obj(r['result'])['transcription'])['utterances'] as Obj[]);
    const utterances = transcripts.flat();
    const meanUtterances = utterances.length / transcripts.length;
    const meanWords =
      utterances.reduce((s, u) => s + (u['words'] as unknown[]).length, 0) / utterances.length;
    expect(meanUtterances).toBeGreaterThan(17);
    expect(meanUtterances).toBeLessThan(23);
    expect(meanWords).toBeGreaterThan(9);
    expect(meanWords).toBeLessThan(11);
  });

  it('leave queued and processing jobs without result or completed_at', () => {
    const pending = dataset.filter((r) => r['status'] === 'queued' || r['status'] === 'processing');
    expect(pending.length).toBeGreaterThan(0);
    for (const r of pending) {
      expect(r['result']).toBeNull();
      expect(r['completed_at']).toBeNull();
      expect(r['error_code']).toBeNull();
    }
  });

  it('give failed jobs an error code, no result, and sometimes no file or request_params', () => {
    const failed = generateDataset({ seed: 1, preRecorded: 300, live: 300, utterancesPerJob: 1 }).filter(
      (r) => r['status'] === 'error',
    );
    for (const r of failed) {
      expect([400, 422, 500]).toContain(r['error_code']);
      expect(r['result']).toBeNull();
      expect(typeof r['completed_at']).toBe('string');
    }
    expect(failed.some((r) => r['file'] === null)).toBe(true);
    expect(failed.some((r) => r['request_params'] === null)).toBe(true);
  });

  it('look like real records: null source and error_code, differing durations, metadata null or an object', () => {
    for (const r of done('pre-recorded')) {
      const file = obj(r['file']);
      const metadata = obj(obj(r['result'])['metadata']);
      expect(file['source']).toBeNull();
      expect(r['error_code']).toBeNull();
      expect(Math.abs(Number(file['audio_duration']) - Number(metadata['audio_duration']))).toBeLessThan(0.1);
      expect(Number(metadata['billing_time'])).toBeGreaterThanOrEqual(Number(metadata['audio_duration']));
      expect(Date.parse(String(r['completed_at']))).toBeGreaterThan(Date.parse(String(r['created_at'])));
    }
    expect(dataset.some((r) => r['custom_metadata'] === null)).toBe(true);
    expect(dataset.some((r) => typeof obj(r['custom_metadata'])['team'] === 'string')).toBe(true);
    expect(dataset.some((r) => 'post_session_metadata' in r)).toBe(true);
    expect(dataset.some((r) => !('post_session_metadata' in r))).toBe(true);
  });

  it('cover every pre-recorded request parameter of the spec, with both vocabulary forms', () => {
    const params = dataset.filter((r) => r['kind'] === 'pre-recorded').map((r) => obj(r['request_params']));
    const keys = new Set(params.flatMap((p) => Object.keys(p)));
    for (const name of [
      'audio_url',
      'context_prompt',
      'custom_vocabulary',
      'custom_vocabulary_config',
      'detect_language',
      'enable_code_switching',
      'code_switching_config',
      'language',
      'callback_url',
      'callback',
      'callback_config',
      'subtitles',
      'subtitles_config',
      'diarization',
      'diarization_config',
      'translation',
      'translation_config',
      'summarization',
      'summarization_config',
      'moderation',
      'named_entity_recognition',
      'chapterization',
      'name_consistency',
      'custom_spelling',
      'custom_spelling_config',
      'structured_data_extraction',
      'structured_data_extraction_config',
      'sentiment_analysis',
      'audio_to_llm',
      'audio_to_llm_config',
      'sentences',
      'display_mode',
      'punctuation_enhanced',
      'language_config',
      'model',
      'speaker_reidentification',
      'skip_channel_deduplication',
    ]) {
      expect(keys, name).toContain(name);
    }
    const vocabulary = params.flatMap(
      (p) => (obj(p['custom_vocabulary_config'])['vocabulary'] as unknown[]) ?? [],
    );
    expect(vocabulary.some((v) => typeof v === 'string')).toBe(true);
    expect(vocabulary.some((v) => Object.keys(obj(v)).join() === 'value')).toBe(true);
    expect(vocabulary.some((v) => Object.keys(obj(v)).length === 4)).toBe(true);
  });

  it('give live jobs their processing configs and the nine message flags', () => {
    const params = dataset.filter((r) => r['kind'] === 'live').map((r) => obj(r['request_params']));
    const keys = new Set(params.flatMap((p) => Object.keys(p)));
    for (const name of [
      'encoding',
      'bit_depth',
      'sample_rate',
      'channels',
      'model',
      'endpointing',
      'maximum_duration_without_endpointing',
      'language_config',
      'pre_processing',
      'realtime_processing',
      'post_processing',
      'messages_config',
      'callback',
      'callback_config',
    ]) {
      expect(keys, name).toContain(name);
    }
    const realtime = new Set(params.flatMap((p) => Object.keys(obj(p['realtime_processing']))));
    expect([...realtime].sort()).toEqual([
      'custom_spelling',
      'custom_spelling_config',
      'custom_vocabulary',
      'custom_vocabulary_config',
      'named_entity_recognition',
      'sentiment_analysis',
      'translation',
      'translation_config',
    ]);
    const withCallback = params.find((p) => p['callback'] === true);
    expect(Object.keys(obj(withCallback?.['callback_config']))).toHaveLength(10);
    expect(Object.keys(obj(params[0]?.['messages_config']))).toHaveLength(9);
    for (const r of done('live')) expect(Array.isArray(obj(r['result'])['messages'])).toBe(true);
  });
});
