import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateJobRecord } from '../../../src/normalize/page-records.js';
import { isValidWord, wordSchema, wordsSchema } from '../../../src/normalize/records/shapes.js';
import { generateDataset } from '../../../src/simulator/records/generate.js';
import { allFixtures, fixture } from '../../fixtures/fixtures.js';

function errorsOf(raw: unknown): { path: string; message: string }[] {
  const result = validateJobRecord(raw);
  return result.ok ? [] : result.errors;
}

describe('validateJobRecord', () => {
  it('accepts every hand-written fixture', () => {
    for (const record of allFixtures()) {
      expect(validateJobRecord(record), String(record['id'])).toMatchObject({ ok: true });
    }
  });

  it('accepts every generated record of both kinds, with modules present and absent', () => {
    const records = generateDataset({
      seed: 11,
      preRecorded: 60,
      live: 60,
      utterancesPerJob: 4,
      wordsPerUtterance: 4,
    });
    const failures = records.map(validateJobRecord).filter((r) => !r.ok);
    expect(failures).toEqual([]);
  });

  it('keeps unknown fields and unknown values of open strings', () => {
    const result = validateJobRecord(fixture('unknown-fields-live'));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const record = result.record as Record<string, unknown> & typeof result.record;
    expect(record['region']).toBe('eu-west');
    expect(record.request_params).toMatchObject({ model: 'solaria-42', vad: { mode: 'aggressive' } });
    expect(record.file).toMatchObject({ codec: 'opus' });
    expect(record.result).toHaveProperty('emotion_detection');
  });

  it('requires id, kind, status and created_at, and reports each by path', () => {
    const record = fixture('queued-pre-recorded');
    delete record['id'];
    record['status'] = 'paused';
    record['created_at'] = '2025-03-04 09:15:02';
    const paths = errorsOf(record).map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['id', 'status', 'created_at']));
    expect(errorsOf({ ...fixture('queued-pre-recorded'), id: '' }).map((e) => e.path)).toEqual(['id']);
    expect(
      errorsOf({ ...fixture('queued-pre-recorded'), created_at: '2025-03-04T09:15:02' }).map((e) => e.path),
    ).toEqual(['created_at']);
  });

  it('reports an unknown kind, with every other problem of the record, and keeps the readable id', () => {
    const result = validateJobRecord({ ...fixture('queued-pre-recorded'), kind: 'batch', version: 'two' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path).sort()).toEqual(['kind', 'version']);
    expect(result.id).toBe('6c1e7c2a-0f0b-4c55-9a43-1b0c7f0e0a01');
    expect(result.kind).toBe('batch');
  });

  it('checks the type of optional fields when present, deep inside the result', () => {
    const record = fixture('done-pre-recorded-all-modules');
    const result = record['result'] as { transcription: { utterances: Record<string, unknown>[] } };
    (result.transcription.utterances[1] as { words: Record<string, unknown>[] }).words[2] = {
      word: 7,
      start: '2.5',
    };
    result.transcription.utterances[0] = { ...result.transcription.utterances[0], speaker: 1.5 };
    (record['file'] as Record<string, unknown>)['audio_duration'] = '62s';
    expect(errorsOf(record)).toEqual(
      expect.arrayContaining([
        { path: 'file.audio_duration', message: expect.stringMatching(/expected number/) },
        { path: 'result.transcription.utterances.0.speaker', message: expect.any(String) },
        {
          path: 'result.transcription.utterances.1.words.2.word',
          message: 'Invalid input: expected string, received number',
        },
        {
          path: 'result.transcription.utterances.1.words.2.start',
          message: 'Invalid input: expected number, received string',
        },
      ]),
    );
  });

  it('rejects values that are not objects, with the record itself as the path', () => {
    for (const raw of [null, 42, 'job', [fixture('queued-pre-recorded')]]) {
      const result = validateJobRecord(raw);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors[0]?.path).toBe('');
    }
  });

  it('rejects an integer too large for its INTEGER column', () => {
    expect(errorsOf({ ...fixture('error-pre-recorded'), error_code: 2 ** 40 }).map((e) => e.path)).toEqual([
      'error_code',
    ]);
  });
});

describe('the word fast path', () => {
  const slow = z.array(wordSchema).nullish();
  const anyWord = fc.oneof(
    fc.record(
      {
        word: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
        start: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null), fc.string()),
        end: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()),
        confidence: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(undefined)),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    ),
    fc.constantFrom(null, 3, 'w', [], true),
  );

  it('reports exactly the issues (paths and messages) full zod validation reports', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(anyWord, { maxLength: 6 }), fc.constantFrom(null, undefined, 'x', { word: 'a' })),
        (words) => {
          const fast = wordsSchema.safeParse(words);
          const full = slow.safeParse(words);
          expect(fast.success).toBe(full.success);
          const shape = (issues: readonly z.core.$ZodIssue[] | undefined) =>
            (issues ?? []).map((i) => [i.path, i.message]);
          expect(shape(fast.error?.issues)).toEqual(shape(full.error?.issues));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees with the word schema on single words', () => {
    fc.assert(
      fc.property(anyWord, (word) => {
        expect(isValidWord(word)).toBe(wordSchema.safeParse(word).success);
      }),
      { numRuns: 400 },
    );
  });

  it('returns the words as given, unknown fields included', () => {
    const words = [{ word: 'a', start: 0, end: 1, confidence: 0.5, speaker_hint: 2 }];
    const parsed = wordsSchema.parse(words);
    expect(parsed).toBe(words);
  });
});
