/**
 * Records shaped as the real service sends them, beyond what the spec shows (nulls where it shows
 * objects, parts omitted, undocumented request parameters, the current shape of feature results),
 * served over HTTP by the simulator alone and mixed with its own records: every field lands in the
 * column docs/schema.md names, and none of them is quarantined.
 */
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/simulator/index.js';
import { startSimulator } from '../../../src/simulator/index.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { syncOnce } from '../../helpers/sync.js';

const HOUR = 3_600_000;
const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * HOUR).toISOString();

const words = (text: string, start: number) =>
  text.split(' ').map((word, i) => ({ word, start: start + i, end: start + i + 0.5, confidence: 0.7 }));

const utterance = (text: string, language: string) => ({
  words: words(text, 1),
  text,
  language,
  start: 1,
  end: 1 + text.split(' ').length,
  speaker: 0,
  channel: 0,
  confidence: 0.6,
});

/** A done pre-recorded job as a real GET returns it: null metadata, an undocumented parameter, NER's current shape. */
function donePreRecorded(): JobRecord {
  return {
    id: '3c0e7f0a-1111-4aaa-8bbb-000000000001',
    request_id: 'G-3c0e7f0a',
    version: 2,
    status: 'done',
    created_at: at(5),
    completed_at: at(4.9),
    custom_metadata: null,
    error_code: null,
    kind: 'pre-recorded',
    file: {
      id: 'f-0001',
      filename: 'podcast.mp3',
      source: null,
      audio_duration: 275.04,
      number_of_channels: 2,
    },
    request_params: {
      audio_url: 'https://example.invalid/podcast.mp3',
      model: 'solaria-3',
      diarization: true,
      translation: true,
      named_entity_recognition: true,
      speaker_reidentification: false,
      skip_channel_deduplication: false,
      diarization_enhanced: false,
      audio_enhancer: false,
      translation_config: { target_languages: ['fr', 'en'], model: 'base', match_original_utterances: true },
    },
    result: {
      metadata: {
        audio_duration: 275.005542,
        number_of_distinct_channels: 1,
        billing_time: 275.005542,
        transcription_time: 48.41,
      },
      transcription: {
        utterances: [utterance('hello Acme world', 'ja'), utterance('good bye', 'ja')],
        full_transcript: 'hello Acme world good bye',
        languages: ['ja'],
        subtitles: [{ format: 'srt', subtitles: '1\n00:00:01.000 --> 00:00:04.000\nhello Acme world\n' }],
      },
      translation: {
        success: true,
        is_empty: false,
        exec_time: 8.8,
        error: null,
        results: [
          {
            languages: ['fr'],
            full_transcript: 'bonjour',
            utterances: [utterance('bonjour', 'fr')],
            error: null,
          },
          {
            languages: ['en'],
            full_transcript: 'hello',
            utterances: [utterance('hello', 'en')],
            error: null,
          },
        ],
      },
      named_entity_recognition: {
        success: true,
        is_empty: false,
        exec_time: 0.4,
        error: null,
        results: [{ entity_type: 'ORGANIZATION', text: 'Acme', start: 2, end: 2.5 }],
      },
    },
  } as unknown as JobRecord;
}

/** A live list item: only result.metadata. */
function metadataOnlyLive(): JobRecord {
  return {
    id: '3c0e7f0a-1111-4aaa-8bbb-000000000002',
    request_id: 'G-3c0e7f0b',
    version: 2,
    status: 'done',
    created_at: at(6),
    completed_at: at(5.9),
    custom_metadata: null,
    error_code: null,
    kind: 'live',
    file: { id: 'f-0002', filename: 'f-0002.wav', source: null, audio_duration: 13, number_of_channels: 1 },
    request_params: { model: 'solaria-1', language_config: { languages: [], code_switching: true } },
    result: {
      metadata: {
        audio_duration: 13,
        number_of_distinct_channels: 1,
        billing_time: 13,
        transcription_time: 44.733,
      },
    },
  } as unknown as JobRecord;
}

/** A failed job: no file, no request parameters, no result. */
function failedPreRecorded(): JobRecord {
  return {
    id: '3c0e7f0a-1111-4aaa-8bbb-000000000003',
    request_id: 'G-3c0e7f0c',
    version: 2,
    status: 'error',
    created_at: at(7),
    completed_at: at(6.9),
    custom_metadata: { team: 'support' },
    error_code: 422,
    kind: 'pre-recorded',
    file: null,
    request_params: null,
    result: null,
  } as unknown as JobRecord;
}

const REAL = [donePreRecorded, metadataOnlyLive, failedPreRecorded];

async function rows(db: string, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await openReadOnly(db);
  try {
    return await reader.all(sql);
  } finally {
    await reader.close();
  }
}

describe('records shaped as the real service sends them', () => {
  for (const mixed of [false, true]) {
    it(`land in the documented columns, none quarantined${mixed ? ', mixed with the simulator' : ''}`, async () => {
      const sim = await startSimulator({ records: REAL.map((make) => make()), seed: 4 });
      onCleanup(() => sim.close());
      if (mixed) {
        for (let i = 0; i < 6; i++) {
          sim.data.add({
            kind: i % 2 === 0 ? 'pre-recorded' : 'live',
            status: 'done',
            createdAt: new Date(Date.now() - (4.5 + i * 0.5) * HOUR),
          });
        }
      }
      const db = await migratedDb('real.duckdb');
      const summary = await syncOnce(sim, db, { pageSize: 3 });
      expect(summary.outcome).toBe('ok');
      expect(summary.kinds.reduce((n, k) => n + k.quarantined, 0)).toBe(0);
      expect(await rows(db, 'SELECT count(*)::INTEGER AS n FROM quarantine')).toEqual([{ n: 0 }]);
      expect(await rows(db, 'SELECT count(*)::INTEGER AS n FROM jobs')).toEqual([{ n: mixed ? 9 : 3 }]);

      const [done] = await rows(
        db,
        `SELECT status, version, request_id, error_code, custom_metadata, post_session_metadata,
                request_params->>'model' AS model, request_params->>'diarization_enhanced' AS enhanced,
                file_id, filename, file_source, file_audio_duration, number_of_channels, audio_duration,
                billing_time, transcription_time, number_of_distinct_channels, full_transcript, languages
         FROM jobs WHERE id = '${donePreRecorded().id}'`,
      );
      expect(done).toEqual({
        status: 'done',
        version: 2,
        request_id: 'G-3c0e7f0a',
        error_code: null,
        custom_metadata: null,
        post_session_metadata: null,
        model: 'solaria-3',
        enhanced: 'false',
        file_id: 'f-0001',
        filename: 'podcast.mp3',
        file_source: null,
        file_audio_duration: 275.04,
        number_of_channels: 2,
        audio_duration: 275.005542,
        billing_time: 275.005542,
        transcription_time: 48.41,
        number_of_distinct_channels: 1,
        full_transcript: 'hello Acme world good bye',
        languages: ['ja'],
      });
      expect(
        await rows(
          db,
          `SELECT source, count(*)::INTEGER AS utterances FROM utterances
           WHERE job_id = '${donePreRecorded().id}' GROUP BY source ORDER BY source`,
        ),
      ).toEqual([
        { source: 'transcription', utterances: 2 },
        { source: 'translation:en', utterances: 1 },
        { source: 'translation:fr', utterances: 1 },
      ]);
      const modules = await rows(
        db,
        `SELECT module, success, exec_time, results FROM module_results
         WHERE job_id = '${donePreRecorded().id}' ORDER BY module`,
      );
      expect(modules.map((m) => m['module'])).toEqual(['named_entity_recognition', 'translation']);
      // The entities the service sends in `results` (the spec's `entity` in older records).
      expect(modules[0]).toMatchObject({ success: true, exec_time: 0.4 });
      expect(JSON.parse(String(modules[0]?.['results']))).toEqual([
        { entity_type: 'ORGANIZATION', text: 'Acme', start: 2, end: 2.5 },
      ]);

      expect(
        await rows(
          db,
          `SELECT kind, status, audio_duration, billing_time, full_transcript, languages, file_source
           FROM jobs WHERE id = '${metadataOnlyLive().id}'`,
        ),
      ).toEqual([
        {
          kind: 'live',
          status: 'done',
          audio_duration: 13,
          billing_time: 13,
          full_transcript: null,
          languages: null,
          file_source: null,
        },
      ]);
      expect(
        await rows(
          db,
          `SELECT status, error_code, custom_metadata->>'team' AS team, request_params, file_id,
                  number_of_channels, billing_time
           FROM jobs WHERE id = '${failedPreRecorded().id}'`,
        ),
      ).toEqual([
        {
          status: 'error',
          error_code: 422,
          team: 'support',
          request_params: null,
          file_id: null,
          number_of_channels: null,
          billing_time: null,
        },
      ]);
    });
  }
});
