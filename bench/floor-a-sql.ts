/**
 * Floor A's SQL: DuckDB loading the NDJSON records into the tables of sql/001_tables.sql by itself.
 * Each line is typed once by `read_ndjson` with explicit columns (auto-detection is slower), its
 * text kept exactly as received by `read_ndjson_objects` beside it (a positional join of the two
 * scans of the file), and the nested lists are unnested in SQL. Every column the loader writes is
 * written here too, `raw` and its sha1 included, so the two do the same work.
 */

const WORD = { word: 'VARCHAR', start: 'DOUBLE', end: 'DOUBLE', confidence: 'DOUBLE' };
const UTTERANCE = {
  start: 'DOUBLE',
  end: 'DOUBLE',
  confidence: 'DOUBLE',
  channel: 'INTEGER',
  speaker: 'INTEGER',
  language: 'VARCHAR',
  text: 'VARCHAR',
  words: [WORD],
};
const ERROR = { status_code: 'INTEGER', exception: 'VARCHAR', message: 'VARCHAR' };
const WRAPPER = { success: 'BOOLEAN', is_empty: 'BOOLEAN', exec_time: 'DOUBLE', error: ERROR };

/** Feature results stored with their `results` as JSON (spec 2.6, 2.7). */
const PLAIN_MODULES = [
  'summarization',
  'moderation',
  'name_consistency',
  'speaker_reidentification',
  'structured_data_extraction',
  'sentiment_analysis',
  'audio_to_llm',
  'sentences',
  'display_mode',
  'chapterization',
] as const;

const STRUCTURE = {
  id: 'VARCHAR',
  kind: 'VARCHAR',
  status: 'VARCHAR',
  version: 'INTEGER',
  request_id: 'VARCHAR',
  created_at: 'TIMESTAMPTZ',
  completed_at: 'TIMESTAMPTZ',
  error_code: 'INTEGER',
  custom_metadata: 'JSON',
  post_session_metadata: 'JSON',
  request_params: 'JSON',
  file: {
    id: 'VARCHAR',
    filename: 'VARCHAR',
    source: 'VARCHAR',
    audio_duration: 'DOUBLE',
    number_of_channels: 'INTEGER',
  },
  result: {
    metadata: {
      audio_duration: 'DOUBLE',
      billing_time: 'DOUBLE',
      transcription_time: 'DOUBLE',
      number_of_distinct_channels: 'INTEGER',
    },
    transcription: {
      full_transcript: 'VARCHAR',
      languages: ['VARCHAR'],
      utterances: [UTTERANCE],
      sentences: [{ ...WRAPPER, results: 'JSON' }],
    },
    translation: {
      ...WRAPPER,
      results: [
        {
          error: 'JSON',
          full_transcript: 'VARCHAR',
          languages: ['VARCHAR'],
          utterances: [UTTERANCE],
          sentences: 'JSON',
          subtitles: 'JSON',
        },
      ],
    },
    diarization: { ...WRAPPER, results: [UTTERANCE] },
    named_entity_recognition: { ...WRAPPER, entity: 'JSON' },
    messages: 'JSON',
    ...Object.fromEntries(PLAIN_MODULES.map((name) => [name, { ...WRAPPER, results: 'JSON' }])),
  },
};

function moduleBranch(key: string, results: string): string {
  const m = `r.result.${key}`;
  return (
    `SELECT r.id, '${key}', ${m}.success, ${m}.is_empty, ${m}.exec_time, ${m}.error.status_code, ` +
    `${m}.error.exception, ${m}.error.message, ${results}, r.created_at FROM src WHERE ${m} IS NOT NULL`
  );
}

const TRANSLATION_RESULTS =
  "to_json(list_transform(r.result.translation.results, e -> {'error': e.error, 'full_transcript': e.full_transcript, " +
  "'languages': e.languages, 'sentences': e.sentences, 'subtitles': e.subtitles}))";

/** DuckDB's settings for floor A bounded (bench/task-floor-a.ts), each shape its own (bench/datasets.ts). */
export interface FloorABounds {
  readonly memoryLimitMb: number;
  readonly threads: number;
  /** Jobs (NDJSON lines) a transaction. */
  readonly batchJobs: number;
}

/** How the report shows a bounded floor's settings. */
export function floorABoundsText(bounds: FloorABounds): string {
  const threads = bounds.threads === 1 ? 'thread' : 'threads';
  return `${bounds.batchJobs.toLocaleString('en-US')} jobs a transaction, memory_limit ${bounds.memoryLimitMb} MB, ${bounds.threads} ${threads}`;
}

/** A structure as a DuckDB type: objects are STRUCTs, one-element arrays lists. */
function sqlType(structure: unknown): string {
  if (typeof structure === 'string') return structure;
  if (Array.isArray(structure)) return `${sqlType(structure[0])}[]`;
  const fields = Object.entries(structure as Record<string, unknown>).map(([k, v]) => `"${k}" ${sqlType(v)}`);
  return `STRUCT(${fields.join(', ')})`;
}

/** read_ndjson's `columns`: each top-level field of the record and its type. */
const COLUMNS = `{${Object.entries(STRUCTURE)
  .map(([name, type]) => `'${name}': '${sqlType(type)}'`)
  .join(', ')}}`;

/** The temporary tables the statements create, dropped before a transaction's COMMIT when several follow. */
export const FLOOR_A_TEMP_TABLES = ['src', 'u'] as const;

/** The statements, in order, for the NDJSON file at `path` (run inside one transaction). */
export function floorAStatements(path: string): string[] {
  const file = `'${path.replaceAll("'", "''")}'`;
  const utteranceLists = [
    "SELECT r.id AS job_id, r.created_at AS job_created_at, 'transcription' AS source, r.result.transcription.utterances AS us FROM src",
    "SELECT r.id, r.created_at, 'translation:' || coalesce(e.languages[1], (i - 1)::VARCHAR), e.utterances " +
      'FROM src, unnest(r.result.translation.results) WITH ORDINALITY AS t(e, i)',
    "SELECT r.id, r.created_at, 'diarization', r.result.diarization.results FROM src",
  ];
  const modules = [
    ...PLAIN_MODULES.map((key) => moduleBranch(key, `r.result.${key}.results`)),
    moduleBranch('named_entity_recognition', 'r.result.named_entity_recognition.entity'),
    moduleBranch('translation', TRANSLATION_RESULTS),
    moduleBranch('diarization', 'NULL::JSON'),
    "SELECT r.id, 'messages', NULL, NULL, NULL, NULL, NULL, NULL, r.result.messages, r.created_at FROM src WHERE r.result.messages IS NOT NULL",
    "SELECT r.id, 'transcription.sentences', s.success, s.is_empty, s.exec_time, s.error.status_code, s.error.exception, " +
      's.error.message, s.results, r.created_at FROM src, unnest(r.result.transcription.sentences) AS t(s)',
  ];
  return [
    // `t` is the typed row as one STRUCT; both scans keep the file's order, so row i is line i.
    `CREATE TEMP TABLE src AS SELECT o.json AS raw, t AS r FROM read_ndjson_objects(${file}) AS o ` +
      `POSITIONAL JOIN read_ndjson(${file}, columns = ${COLUMNS}) AS t`,
    'INSERT INTO jobs SELECT r.id, r.kind, r.status, r.version, r.request_id, r.created_at, r.completed_at, r.error_code, ' +
      'r.custom_metadata, r.post_session_metadata, r.request_params, ' +
      'r.file.id, r.file.filename, r.file.source, r.file.audio_duration, r.file.number_of_channels, ' +
      'r.result.metadata.audio_duration, r.result.metadata.billing_time, r.result.metadata.transcription_time, ' +
      'r.result.metadata.number_of_distinct_channels, r.result.transcription.full_transcript, ' +
      'r.result.transcription.languages, sha1(raw), now(), NULL, NULL, NULL FROM src',
    'INSERT INTO job_records SELECT r.id, r.created_at, raw FROM src',
    `CREATE TEMP TABLE u AS SELECT job_id, job_created_at, source, generate_subscripts(us, 1) - 1 AS utterance_idx, unnest(us) AS u FROM (${utteranceLists.join(' UNION ALL ')}) WHERE us IS NOT NULL`,
    'INSERT INTO utterances SELECT job_id, source, utterance_idx, u.start, u.end, u.confidence, u.channel, u.speaker, u.language, u.text, ' +
      'job_created_at FROM u',
    // One unnest of each word list, its fields taken outside: faster than unnest()ing it per field.
    'INSERT INTO words SELECT job_id, source, utterance_idx, idx, w.word, w.start, w."end", w.confidence, job_created_at FROM ' +
      '(SELECT job_id, job_created_at, source, utterance_idx, generate_subscripts(u.words, 1) - 1 AS idx, unnest(u.words) AS w FROM u)',
    `INSERT INTO module_results ${modules.join(' UNION ALL ')}`,
  ];
}
