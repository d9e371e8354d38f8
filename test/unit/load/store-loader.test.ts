import { afterEach, describe, expect, it } from 'vitest';
import { RecordLoader } from '../../../src/load/loader.js';
import { ParseBatch } from '../../../src/load/parse-batch.js';
import { normalizeTexts } from '../../../src/normalize/page-records.js';
import { generateDataset } from '../../../src/simulator/records/generate.js';
import type { Database } from '../../../src/store/database.js';
import { openWriter } from '../../../src/store/open-file.js';
import { expectedChildren, storedChildren } from '../../fixtures/expected.js';
import { allFixtures, fixture } from '../../fixtures/fixtures.js';
import { loadRecords } from '../../helpers/load.js';
import { migratedDb } from '../../helpers/migrated-db.js';

const open: Database[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function freshDb(): Promise<Database> {
  const db = await openWriter(await migratedDb('jobs.duckdb'));
  open.push(db);
  return db;
}

const syncedAt = new Date('2025-04-01T00:00:00.000Z');

async function count(db: Database, table: string, where = 'true'): Promise<number> {
  const rows = await db.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${table} WHERE ${where}`);
  return rows[0]?.n ?? -1;
}

describe('the loader: round trip', () => {
  it('loads every fixture with as many utterances and words per source as the record holds', async () => {
    const db = await freshDb();
    const records = allFixtures();
    const result = await loadRecords(db, records, syncedAt);
    expect(result).toMatchObject({ inserted: records.length, updated: 0, unchanged: 0, quarantined: 0 });
    for (const record of records) {
      expect(await storedChildren(db, String(record['id']))).toEqual(expectedChildren(record));
    }
    const expected = records.map(expectedChildren);
    const words = expected.flatMap((e) => Object.values(e)).reduce((sum, c) => sum + c.words, 0);
    expect(result.words).toBe(words);
    expect(await count(db, 'words')).toBe(words);
  });

  it('round-trips generated records of both kinds, every module present or absent', async () => {
    const db = await freshDb();
    const records = generateDataset({
      seed: 3,
      preRecorded: 40,
      live: 40,
      utterancesPerJob: 5,
      wordsPerUtterance: 5,
    });
    const result = await loadRecords(db, records, syncedAt);
    expect(result).toMatchObject({ inserted: records.length, quarantined: 0 });
    const expected: Record<string, ReturnType<typeof expectedChildren>> = {};
    for (const record of records)
      expected[String(record.id)] = expectedChildren(record as unknown as Record<string, unknown>);
    const rows = await db.all<{ job_id: string; source: string; utterances: number; words: number }>(
      `SELECT u.job_id, u.source, count(*)::INTEGER AS utterances, coalesce(max(w.n), 0)::INTEGER AS words
       FROM utterances u
       LEFT JOIN (SELECT job_id, source, count(*) AS n FROM words GROUP BY ALL) w USING (job_id, source)
       GROUP BY ALL`,
    );
    const stored: typeof expected = {};
    for (const record of records) stored[String(record.id)] = {};
    for (const row of rows) {
      const counts = stored[row.job_id] ?? {};
      counts[row.source] = { utterances: row.utterances, words: row.words };
      stored[row.job_id] = counts;
    }
    expect(stored).toEqual(expected);
    const sources = new Set(rows.map((r) => r.source.replace(/:.*/, '')));
    expect(sources).toEqual(new Set(['transcription', 'translation', 'diarization']));
    const again = await loadRecords(db, records, syncedAt);
    expect(again.unchanged).toBe(records.length);
  });

  it('maps the file, metadata and transcription of a record onto the jobs row, its text onto job_records', async () => {
    const db = await freshDb();
    await loadRecords(db, [fixture('done-pre-recorded-all-modules')], syncedAt);
    const [job] = await db.all<Record<string, unknown>>(
      `SELECT j.*, r.raw::VARCHAR AS raw, r.job_created_at
       FROM jobs j JOIN job_records r ON r.job_id = j.id WHERE j.id = 'a3f2b1c0-1111-4222-8333-944455556603'`,
    );
    expect(job).toMatchObject({
      kind: 'pre-recorded',
      status: 'done',
      version: 2,
      request_id: 'G-a3f2b1c0',
      error_code: null,
      file_id: 'c0ffee00-0000-4000-8000-000000000003',
      filename: 'interview.mp3',
      file_source: null,
      file_audio_duration: 62.04,
      number_of_channels: 2,
      audio_duration: 62.001,
      billing_time: 62.001,
      transcription_time: 9.87,
      number_of_distinct_channels: 1,
      full_transcript: 'Hello there. Thanks for calling Acme.',
      languages: ['en'],
      deleted_at: null,
    });
    expect(job?.['created_at']).toEqual(new Date('2025-03-05T14:00:00.000Z'));
    expect(job?.['completed_at']).toEqual(new Date('2025-03-05T14:02:31.250Z'));
    expect(job?.['job_created_at']).toEqual(job?.['created_at']);
    expect(JSON.parse(String(job?.['custom_metadata']))).toEqual({ customer: 'acme', tier: 2 });
    expect(JSON.parse(String(job?.['raw']))).toEqual(fixture('done-pre-recorded-all-modules'));
    expect(JSON.parse(String(job?.['request_params']))).toMatchObject({
      model: 'solaria-3',
      speaker_reidentification: true,
    });
  });

  it('writes one module_results row per feature and per transcription sentence', async () => {
    const db = await freshDb();
    await loadRecords(
      db,
      [fixture('done-pre-recorded-all-modules'), fixture('done-live-messages')],
      syncedAt,
    );
    const rows = await db.all<{
      job_id: string;
      module: string;
      success: boolean | null;
      error_status_code: number | null;
      results: string | null;
    }>(
      'SELECT job_id, module, success, error_status_code, results::VARCHAR AS results FROM module_results ORDER BY job_id, module',
    );
    const modulesOf = (id: string) => rows.filter((r) => r.job_id === id).map((r) => r.module);
    expect(modulesOf('a3f2b1c0-1111-4222-8333-944455556603').sort()).toEqual(
      [
        'audio_to_llm',
        'chapterization',
        'diarization',
        'display_mode',
        'moderation',
        'name_consistency',
        'named_entity_recognition',
        'sentences',
        'sentiment_analysis',
        'speaker_reidentification',
        'structured_data_extraction',
        'summarization',
        'transcription.sentences',
        'transcription.sentences',
        'translation',
      ].sort(),
    );
    // sentiment_analysis is null in the live record: no row for it.
    expect(modulesOf('5e6f7a8b-2222-4333-8444-955566667704').sort()).toEqual(
      ['chapterization', 'messages', 'named_entity_recognition', 'summarization', 'translation'].sort(),
    );
    const find = (module: string) => rows.find((r) => r.module === module && r.job_id.startsWith('a3f2'));
    expect(JSON.parse(find('named_entity_recognition')?.results ?? 'null')).toBe(
      '[{"entity_type":"ORG","text":"Acme"}]',
    );
    expect(find('speaker_reidentification')).toMatchObject({ success: false, error_status_code: 400 });
    expect(find('diarization')?.results).toBeNull();
    const translation = JSON.parse(find('translation')?.results ?? 'null') as Record<string, unknown>[];
    expect(translation).toHaveLength(2);
    expect(translation[0]).not.toHaveProperty('utterances');
    expect(translation[0]).toMatchObject({ full_transcript: 'Bonjour.', languages: ['fr'] });
    const messages = rows.find((r) => r.module === 'messages');
    expect(JSON.parse(messages?.results ?? 'null')).toHaveLength(2);
  });

  it('writes a feature result of a name the mapping does not know, read from the record by name', async () => {
    const db = await freshDb();
    const record = fixture('unknown-fields-live');
    await loadRecords(db, [record, fixture('done-pre-recorded-all-modules')], syncedAt);
    const rows = await db.all<{
      module: string;
      success: boolean | null;
      exec_time: number | null;
      results: string;
    }>(
      'SELECT module, success, exec_time, results::VARCHAR AS results FROM module_results WHERE job_id = $id',
      { id: String(record['id']) },
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ module: 'emotion_detection', success: true, exec_time: 0.7 });
    expect(JSON.parse(rows[0]?.results ?? 'null')).toEqual([{ emotion: 'calm' }]);
  });

  it('keeps records with the real-world nulls: no file, no request_params, no result', async () => {
    const db = await freshDb();
    const result = await loadRecords(
      db,
      [fixture('error-pre-recorded'), fixture('queued-pre-recorded')],
      syncedAt,
    );
    expect(result.inserted).toBe(2);
    const rows = await db.all<{
      status: string;
      file_id: string | null;
      request_params: string | null;
      error_code: number | null;
    }>('SELECT status, file_id, request_params, error_code FROM jobs ORDER BY status');
    expect(rows).toEqual([
      { status: 'error', file_id: null, request_params: null, error_code: 422 },
      expect.objectContaining({
        status: 'queued',
        file_id: 'f7d1a6e0-5b43-4d8e-bb7e-2f3e0c9d1a11',
        error_code: null,
      }),
    ]);
  });

  it('keeps the diarization of a live record (the spec gives it none) whole in module_results', async () => {
    const db = await freshDb();
    const [diarized] = generateDataset({ seed: 41, preRecorded: 10, live: 0 }).filter(
      (r) => (r.result as { diarization?: unknown } | null)?.diarization,
    );
    expect(diarized).toBeDefined();
    const live = { ...structuredClone(diarized), kind: 'live' } as unknown as Record<string, unknown>;
    const diarization = (live['result'] as { diarization: { results: unknown[] } }).diarization;
    await loadRecords(db, [live], syncedAt);
    const counts = await storedChildren(db, String(live['id']));
    expect(counts['diarization']).toBeUndefined();
    expect(counts).toEqual(expectedChildren(live));
    const [row] = await db.all<{ results: string | null }>(
      "SELECT results FROM module_results WHERE module = 'diarization'",
    );
    expect(JSON.parse(row?.results ?? 'null')).toEqual(diarization.results);
  });

  it('stores instants with an offset as the same UTC instant', async () => {
    const db = await freshDb();
    await loadRecords(db, [fixture('done-live-messages')], syncedAt);
    const [row] = await db.all<{ created_at: Date }>('SELECT created_at FROM jobs');
    expect(row?.created_at.toISOString()).toBe('2025-03-06T07:30:00.500Z');
  });
});

describe('the loader: idempotence', () => {
  it('loads the same batch twice as all unchanged, without duplicates', async () => {
    const db = await freshDb();
    await loadRecords(db, allFixtures(), syncedAt);
    const before = await count(db, 'words');
    const again = await loadRecords(db, allFixtures(), new Date('2025-04-02T00:00:00Z'));
    expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: allFixtures().length, words: 0 });
    expect(await count(db, 'jobs')).toBe(allFixtures().length);
    expect(await count(db, 'words')).toBe(before);
    // Nothing was written: synced_at still says the first load.
    const synced = await db.all<{ synced_at: Date }>('SELECT DISTINCT synced_at FROM jobs');
    expect(synced.map((r) => r.synced_at.toISOString())).toEqual([syncedAt.toISOString()]);
  });

  it('leaves one copy of a record that appears twice in a batch and in overlapping batches of one transaction', async () => {
    const db = await freshDb();
    const live = fixture('done-live-messages');
    const pre = fixture('done-pre-recorded-all-modules');
    await db.transaction(async () => {
      const first = await loadRecords(db, [live, pre, live], syncedAt);
      expect(first.inserted).toBe(2);
      expect(await count(db, 'jobs')).toBe(2);
      const second = await loadRecords(db, [pre, fixture('queued-pre-recorded')], syncedAt);
      expect(second).toMatchObject({ inserted: 1, unchanged: 1 });
    });
    expect(await count(db, 'jobs')).toBe(3);
    expect(await storedChildren(db, String(live['id']))).toEqual(expectedChildren(live));
    expect(await storedChildren(db, String(pre['id']))).toEqual(expectedChildren(pre));
  });

  it('replaces all children of a changed record: old words are gone', async () => {
    const db = await freshDb();
    const record = fixture('done-pre-recorded-all-modules');
    await loadRecords(db, [record], syncedAt);
    const transcription = (
      record['result'] as { transcription: { utterances: { words: { word: string }[] }[] } }
    ).transcription;
    transcription.utterances = [{ ...transcription.utterances[0], words: [{ word: 'Replaced' }] } as never];
    (record['result'] as Record<string, unknown>)['diarization'] = null;
    const result = await loadRecords(db, [record], new Date('2025-04-03T00:00:00Z'));
    expect(result).toMatchObject({ updated: 1, inserted: 0, unchanged: 0 });
    expect(await storedChildren(db, String(record['id']))).toEqual(expectedChildren(record));
    const words = await db.all<{ word: string }>("SELECT word FROM words WHERE source = 'transcription'");
    expect(words).toEqual([{ word: 'Replaced' }]);
    expect(await count(db, 'module_results', "module = 'diarization'")).toBe(0);
    expect(await count(db, 'jobs')).toBe(1);
  });

  it('replaces a stored job listed again under another created_at, never storing it twice', async () => {
    const db = await freshDb();
    const record = fixture('done-pre-recorded-all-modules');
    // One loader with the filter of stored ids from its first miss: the ids it learns as it
    // inserts; then a fresh one, which looks its first misses up in the whole table.
    const loader = new RecordLoader(db, { lookupsBeforeFilter: 0 });
    await loader.load(normalizeTexts([JSON.stringify(record)]), syncedAt);
    for (const [days, load] of [
      [300, (texts: string[]) => loader.load(normalizeTexts(texts), syncedAt)],
      [-300, (texts: string[]) => new RecordLoader(db).load(normalizeTexts(texts), syncedAt)],
    ] as const) {
      const moved = {
        ...record,
        created_at: new Date(Date.parse(String(record['created_at'])) + days * 86_400_000).toISOString(),
      };
      const result = await load([JSON.stringify(moved)]);
      expect(result).toMatchObject({ updated: 1 });
      expect(await count(db, 'jobs', `id = '${String(record['id'])}'`)).toBe(1);
      expect(await storedChildren(db, String(record['id']))).toEqual(expectedChildren(moved));
    }
  });

  it('once it holds the filter of stored ids, stores a batch the filter rules out as new and compares one it does not', async () => {
    const db = await freshDb();
    const records = generateDataset({
      seed: 11,
      preRecorded: 15,
      live: 5,
      utterancesPerJob: 2,
      wordsPerUtterance: 3,
    });
    const texts = records.map((record) => JSON.stringify(record));
    // The filter is read at the first batch's misses; the second batch is all new, ruled out by it.
    const loader = new RecordLoader(db, { lookupsBeforeFilter: 0 });
    const load = (batch: string[]) => loader.load(normalizeTexts(batch), syncedAt);
    expect(await load(texts.slice(0, 8))).toMatchObject({ inserted: 8, updated: 0, unchanged: 0 });
    expect(await load(texts.slice(8, 14))).toMatchObject({ inserted: 6, updated: 0, unchanged: 0 });
    // A batch with an id of the ruled-out batch beside new ones is compared: one changed, six new.
    const changed: Record<string, unknown> = { ...records[9], custom_metadata: { batch: 'third' } };
    expect(await load([...texts.slice(14), JSON.stringify(changed)])).toMatchObject({
      inserted: 6,
      updated: 1,
      unchanged: 0,
    });
    expect(await load([texts[3] as string, texts[12] as string])).toMatchObject({
      inserted: 0,
      unchanged: 2,
    });
    expect(await count(db, 'jobs')).toBe(records.length);
    expect(await count(db, '(SELECT DISTINCT id FROM jobs)')).toBe(records.length);
    for (const record of [...records.slice(0, 9), changed, ...records.slice(10)])
      expect(await storedChildren(db, String(record['id']))).toEqual(expectedChildren(record));
    const [stored] = await db.all<{ custom_metadata: string }>(
      'SELECT custom_metadata::VARCHAR AS custom_metadata FROM jobs WHERE id = $id',
      { id: String(changed['id']) },
    );
    expect(JSON.parse(stored?.custom_metadata ?? 'null')).toEqual({ batch: 'third' });
  });

  it('stores a word without text, times or confidence as NULLs, and zeros as zeros', async () => {
    const db = await freshDb();
    const record = fixture('done-pre-recorded-all-modules');
    const transcription = (record['result'] as { transcription: { utterances: { words: unknown[] }[] } })
      .transcription;
    transcription.utterances = [
      {
        ...transcription.utterances[0],
        words: [
          { word: null, start: null, end: null, confidence: null },
          { word: '', start: 0, end: 0, confidence: 0 },
          {},
        ],
      } as never,
    ];
    // In one batch with another record, as the writer loads waiting pages together.
    const other = fixture('done-live-messages');
    await loadRecords(db, [other, record], syncedAt);
    const words = await db.all<Record<string, unknown>>(
      'SELECT word_idx, word, start, "end", confidence FROM words WHERE job_id = $id AND source = \'transcription\' ORDER BY word_idx',
      { id: String(record['id']) },
    );
    expect(words).toEqual([
      { word_idx: 0, word: null, start: null, end: null, confidence: null },
      { word_idx: 1, word: '', start: 0, end: 0, confidence: 0 },
      { word_idx: 2, word: null, start: null, end: null, confidence: null },
    ]);
  });

  it('restores a job marked deleted when it is seen again', async () => {
    const db = await freshDb();
    const records = [fixture('queued-pre-recorded'), fixture('error-pre-recorded')];
    await loadRecords(db, records, syncedAt);
    await db.run('UPDATE jobs SET deleted_at = now()');
    const changed = fixture('error-pre-recorded');
    changed['error_code'] = 500;
    const result = await loadRecords(db, [fixture('queued-pre-recorded'), changed], syncedAt);
    expect(result).toMatchObject({ restored: 2, unchanged: 1, updated: 1 });
    expect(await count(db, 'jobs', 'deleted_at IS NOT NULL')).toBe(0);
  });
});

describe('the loader: writes only what changed', () => {
  it('writes the rows of the new and changed jobs of a batch that also holds unchanged ones', async () => {
    const db = await freshDb();
    const done = generateDataset({
      seed: 21,
      preRecorded: 6,
      live: 6,
      utterancesPerJob: 3,
      wordsPerUtterance: 4,
    })
      .filter((record) => record['status'] === 'done')
      .slice(0, 5);
    expect(done).toHaveLength(5);
    const [same, edited, alsoSame, fresh, alsoFresh] = done as Record<string, unknown>[] as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    await loadRecords(db, [same, edited, alsoSame], syncedAt);
    const modulesBefore = await count(db, 'module_results');

    // Through JSON, as a client receives it: the generated object shares its utterances with diarization.
    const changed = JSON.parse(JSON.stringify(edited)) as Record<string, unknown>;
    const utterance = (
      changed['result'] as { transcription: { utterances: { words: { word: string }[] }[] } }
    ).transcription.utterances[0];
    if (utterance?.words[0]) utterance.words[0].word = 'Rewritten';
    const later = new Date('2025-04-02T00:00:00.000Z');
    const result = await loadRecords(db, [same, changed, fresh, alsoSame, alsoFresh], later);

    expect(result).toMatchObject({ inserted: 2, updated: 1, unchanged: 2 });
    const wordsOf = (records: Record<string, unknown>[]) =>
      records.reduce(
        (n, r) => n + Object.values(expectedChildren(r)).reduce((m, c) => m + (c?.words ?? 0), 0),
        0,
      );
    // The words written are the changed and new jobs' only, and every job holds its words once.
    expect(result.words).toBe(wordsOf([changed, fresh, alsoFresh]));
    expect(await count(db, 'words')).toBe(wordsOf([same, changed, alsoSame, fresh, alsoFresh]));
    for (const record of [same, changed, alsoSame, fresh, alsoFresh]) {
      expect(await storedChildren(db, String(record['id']))).toEqual(expectedChildren(record));
    }
    expect(await count(db, 'words', "word = 'Rewritten'")).toBe(1);
    expect(await count(db, 'jobs')).toBe(5);
    // Unchanged jobs were not rewritten: their rows keep the first load's synced_at and modules.
    const stamps = await db.all<{ id: string; later: boolean }>(
      'SELECT id, synced_at = $later::TIMESTAMPTZ AS later FROM jobs ORDER BY id',
      { later: later.toISOString() },
    );
    const rewritten = new Set([changed, fresh, alsoFresh].map((r) => String(r['id'])));
    expect(stamps).toEqual(
      [same, changed, alsoSame, fresh, alsoFresh]
        .map((r) => ({ id: String(r['id']), later: rewritten.has(String(r['id'])) }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    );
    const freshModules = await count(
      db,
      'module_results',
      `job_id IN ('${String(fresh['id'])}', '${String(alsoFresh['id'])}')`,
    );
    expect(await count(db, 'module_results')).toBe(modulesBefore + freshModules);
  });
});

describe('the loader: a lot parsed while the next is staged', () => {
  const texts = (records: readonly unknown[]) => normalizeTexts(records.map((r) => JSON.stringify(r)));

  it('returns from stage while a full lot parses, and appends its rows by the flush before the commit', async () => {
    const db = await freshDb();
    const loader = new RecordLoader(db);
    const live = fixture('done-live-messages');
    const pre = fixture('done-pre-recorded-all-modules');
    await db.transaction(async () => {
      // A lot is full at its first byte: the stage starts its parse and returns.
      const first = await loader.stage(texts([live]), syncedAt, 1);
      expect(first).toMatchObject({ inserted: 1, words: 0 });
      expect(await count(db, 'jobs')).toBe(0);
      // The next lot goes to the other connection; the one parsed is appended before it parses.
      const second = await loader.stage(texts([pre]), syncedAt, 1);
      expect(second.inserted).toBe(1);
      expect(await count(db, 'jobs')).toBe(1);
      // A record whose lot is not appended yet is compared with its stored self, never stored twice.
      const again = await loader.stage(texts([pre, fixture('queued-pre-recorded')]), syncedAt, 1);
      expect(again).toMatchObject({ inserted: 1, unchanged: 1 });
      const flushed = await loader.flush();
      // Each lot's child rows are counted once, by the call that appended them.
      const words = [first, second, again, flushed].reduce((sum, r) => sum + r.words, 0);
      expect(words).toBe(await count(db, 'words'));
    });
    expect(await count(db, 'jobs')).toBe(3);
    expect(await storedChildren(db, String(live['id']))).toEqual(expectedChildren(live));
    expect(await storedChildren(db, String(pre['id']))).toEqual(expectedChildren(pre));
  });

  it('parses a lot of new small records at twice parseBytes, big or compared ones at parseBytes', async () => {
    const db = await freshDb();
    const small = texts([fixture('done-live-messages'), fixture('queued-pre-recorded')]).jobs;
    const padded = { ...fixture('done-live-messages'), custom_metadata: { note: 'x'.repeat(40_000) } };
    const big = texts([padded]).jobs;
    const bytes = (jobs: readonly { raw: string }[]) => jobs.reduce((sum, job) => sum + job.raw.length, 0);
    const smallLot = new ParseBatch(db);
    await smallLot.add(small, syncedAt, false);
    expect(smallLot.full(bytes(small))).toBe(false);
    expect(smallLot.full(bytes(small) / 2)).toBe(true);
    await smallLot.discard();
    // Records compared with the stored jobs (an incremental or --full run's): one parseBytes.
    const comparedLot = new ParseBatch(db);
    await comparedLot.add(small.slice(0, 1), syncedAt, false);
    await comparedLot.add(small.slice(1), syncedAt, true);
    expect(comparedLot.full(bytes(small))).toBe(true);
    expect(comparedLot.full(bytes(small) + 1)).toBe(false);
    await comparedLot.discard();
    // Emptied, the lane takes a lot of new records at twice parseBytes again.
    await comparedLot.add(small, syncedAt, false);
    expect(comparedLot.full(bytes(small))).toBe(false);
    await comparedLot.discard();
    const bigLot = new ParseBatch(db);
    await bigLot.add(big, syncedAt, false);
    expect(bigLot.full(bytes(big))).toBe(true);
    expect(bigLot.full(bytes(big) + 1)).toBe(false);
    await bigLot.discard();
  });

  it('drops a lot that is parsing when its transaction rolls back, and loads it again after', async () => {
    const db = await freshDb();
    const loader = new RecordLoader(db);
    const records = allFixtures();
    const failing = db.transaction(async () => {
      await loader.stage(texts(records), syncedAt, 1);
      throw new Error('the walk failed');
    });
    await expect(failing).rejects.toThrow('the walk failed');
    await loader.discard();
    for (const table of ['jobs', 'job_records', 'utterances', 'words', 'module_results']) {
      expect(await count(db, table)).toBe(0);
    }
    const result = await db.transaction(async () => {
      const staged = await loader.stage(texts(records), syncedAt, 1);
      await loader.flush();
      return staged;
    });
    expect(result.inserted).toBe(records.length);
    expect(await count(db, 'jobs')).toBe(records.length);
    for (const record of records) {
      expect(await storedChildren(db, String(record['id']))).toEqual(expectedChildren(record));
    }
  });
});

describe('the loader: transactions', () => {
  it('writes nothing when the caller rolls back (appended rows follow the transaction)', async () => {
    const db = await freshDb();
    const failing = db.transaction(async () => {
      const result = await loadRecords(db, allFixtures(), syncedAt);
      expect(result.words).toBeGreaterThan(0);
      expect(await count(db, 'words')).toBe(result.words);
      throw new Error('page 3 failed');
    });
    await expect(failing).rejects.toThrow('page 3 failed');
    for (const table of ['jobs', 'utterances', 'words', 'module_results', 'quarantine']) {
      expect(await count(db, table)).toBe(0);
    }
    const result = await loadRecords(db, allFixtures(), syncedAt);
    expect(result.inserted).toBe(allFixtures().length);
  });

  it('keeps what committed when a later transaction rolls back', async () => {
    const db = await freshDb();
    await db.transaction(() => loadRecords(db, [fixture('queued-pre-recorded')], syncedAt));
    await db
      .transaction(async () => {
        await loadRecords(db, [fixture('done-live-messages')], syncedAt);
        throw new Error('interrupted');
      })
      .catch(() => undefined);
    const ids = await db.all<{ id: string }>('SELECT id FROM jobs');
    expect(ids).toEqual([{ id: '6c1e7c2a-0f0b-4c55-9a43-1b0c7f0e0a01' }]);
    expect(await count(db, 'words')).toBe(0);
  });
});
