/**
 * Floor A's SQL: DuckDB loading the NDJSON records into the tables of sql/001_tables.sql by itself.
 * Each line is typed once by `read_ndjson` with explicit columns (auto-detection is slower), its
 * text kept exactly as received by `read_ndjson_objects` beside it (a positional join of the two
 * scans of the file), and the nested lists are unnested in SQL. Every column the loader writes is
 * written here too, `raw` and its sha1 included, so the two do the same work. Floor A types each
 * record once into a temporary table; floor A bounded reads the file once a statement instead
 * (floorABoundedStatements).
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

/*
 * The bounded floor's statements read the file each for the fields it needs (`columns` of those
 * alone): no temporary table holds the records between them, so nothing of a transaction but the
 * rows it adds waits in DuckDB's memory (or spills out of it).
 */

/** Fields to keep of a structure: `true` keeps one whole. */
type Keep = { readonly [field: string]: true | Keep };

/** `structure` cut to the fields `keep` names. */
function pick(structure: Record<string, unknown>, keep: Keep): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(keep).map(([k, v]) => {
      const field = structure[k];
      if (v === true) return [k, field];
      if (Array.isArray(field)) return [k, [pick(field[0] as Record<string, unknown>, v)]];
      return [k, pick(field as Record<string, unknown>, v)];
    }),
  );
}

/** read_ndjson's `columns` for the top-level fields of `structure`. */
function columnsOf(structure: Record<string, unknown>): string {
  return `{${Object.entries(structure)
    .map(([name, type]) => `'${name}': '${sqlType(type)}'`)
    .join(', ')}}`;
}

const { result: _result, ...JOB_TOP } = STRUCTURE;
/** What `jobs` takes of a record. */
const JOB_COLUMNS = columnsOf({
  ...JOB_TOP,
  result: pick(STRUCTURE.result, {
    metadata: true,
    transcription: { full_transcript: true, languages: true },
  }),
});
const RECORD_COLUMNS = columnsOf(pick(STRUCTURE, { id: true, created_at: true }));
const { words: _words, ...UTTERANCE_ONLY } = UTTERANCE;
/** A record's id, created_at and its three kinds of utterance lists, each utterance as `utterance`. */
function utteranceColumns(utterance: Record<string, unknown>): string {
  return columnsOf({
    id: 'VARCHAR',
    created_at: 'TIMESTAMPTZ',
    result: {
      transcription: { utterances: [utterance] },
      translation: { results: [{ languages: ['VARCHAR'], utterances: [utterance] }] },
      diarization: { results: [utterance] },
    },
  });
}
const UTTERANCE_COLUMNS = utteranceColumns(UTTERANCE_ONLY);
const WORD_COLUMNS = utteranceColumns({ words: [WORD] });
const { metadata: _metadata, ...MODULE_RESULT } = STRUCTURE.result;
/** What `module_results` takes of a record: the feature results, without their utterances. */
const MODULE_COLUMNS = columnsOf({
  id: 'VARCHAR',
  created_at: 'TIMESTAMPTZ',
  result: {
    ...MODULE_RESULT,
    transcription: { sentences: STRUCTURE.result.transcription.sentences },
    translation: {
      ...WRAPPER,
      results: [
        pick(STRUCTURE.result.translation.results[0]!, {
          error: true,
          full_transcript: true,
          languages: true,
          sentences: true,
          subtitles: true,
        }),
      ],
    },
    diarization: WRAPPER,
  },
});

/** One feature result of a record as module_results' fields, NULL when the record lacks it. */
function moduleEntry(key: string, results: string): string {
  const m = `r.result.${key}`;
  return (
    `CASE WHEN ${m} IS NOT NULL THEN {'module': '${key}', 'success': ${m}.success, 'is_empty': ${m}.is_empty, ` +
    `'exec_time': ${m}.exec_time, 'status_code': ${m}.error.status_code, 'exception': ${m}.error.exception, ` +
    `'message': ${m}.error.message, 'results': ${results}} END`
  );
}

/** module_results' rows of `src`'s records: each record's modules as one list, unnested (one scan). */
function modulesOnce(src: string): string {
  const entries = [
    ...PLAIN_MODULES.map((key) => moduleEntry(key, `r.result.${key}.results`)),
    moduleEntry('named_entity_recognition', 'r.result.named_entity_recognition.entity'),
    moduleEntry('translation', TRANSLATION_RESULTS),
    moduleEntry('diarization', 'NULL::JSON'),
    "CASE WHEN r.result.messages IS NOT NULL THEN {'module': 'messages', 'success': NULL::BOOLEAN, 'is_empty': NULL::BOOLEAN, " +
      "'exec_time': NULL::DOUBLE, 'status_code': NULL::INTEGER, 'exception': NULL::VARCHAR, 'message': NULL::VARCHAR, 'results': r.result.messages} END",
  ];
  const sentences =
    "list_transform(r.result.transcription.sentences, s -> {'module': 'transcription.sentences', 'success': s.success, " +
    "'is_empty': s.is_empty, 'exec_time': s.exec_time, 'status_code': s.error.status_code, 'exception': s.error.exception, " +
    "'message': s.error.message, 'results': s.results})";
  return (
    'SELECT job_id, m.module, m.success, m.is_empty, m.exec_time, m.status_code, m.exception, m.message, m.results, job_created_at FROM ' +
    `(SELECT r.id AS job_id, r.created_at AS job_created_at, unnest(list_concat([${entries.join(', ')}], ${sentences})) AS m FROM ${src}) WHERE m IS NOT NULL`
  );
}

/**
 * Floor A bounded's statements, in order, for the NDJSON file at `path` (one transaction): each
 * reads the file for the fields it needs, every list of a record unnested from one scan.
 */
export function floorABoundedStatements(path: string): string[] {
  const file = `'${path.replaceAll("'", "''")}'`;
  const typed = (columns: string) => `(SELECT t AS r FROM read_ndjson(${file}, columns = ${columns}) AS t)`;
  const withRaw = (columns: string) =>
    `(SELECT o.json AS raw, t AS r FROM read_ndjson_objects(${file}) AS o POSITIONAL JOIN read_ndjson(${file}, columns = ${columns}) AS t)`;
  // Each record's lists of utterances, one row each: one scan of the file, not one a source.
  const utterances = (columns: string) =>
    `SELECT job_id, job_created_at, l.source AS source, generate_subscripts(l.us, 1) - 1 AS utterance_idx, unnest(l.us) AS u FROM ` +
    `(SELECT r.id AS job_id, r.created_at AS job_created_at, unnest(list_concat(` +
    `[{'source': 'transcription', 'us': r.result.transcription.utterances}], ` +
    `list_transform(r.result.translation.results, (e, i) -> {'source': 'translation:' || coalesce(e.languages[1], (i - 1)::VARCHAR), 'us': e.utterances}), ` +
    `[{'source': 'diarization', 'us': r.result.diarization.results}])) AS l FROM ${typed(columns)}) WHERE l.us IS NOT NULL`;
  return [
    'INSERT INTO jobs SELECT r.id, r.kind, r.status, r.version, r.request_id, r.created_at, r.completed_at, r.error_code, ' +
      'r.custom_metadata, r.post_session_metadata, r.request_params, ' +
      'r.file.id, r.file.filename, r.file.source, r.file.audio_duration, r.file.number_of_channels, ' +
      'r.result.metadata.audio_duration, r.result.metadata.billing_time, r.result.metadata.transcription_time, ' +
      'r.result.metadata.number_of_distinct_channels, r.result.transcription.full_transcript, ' +
      `r.result.transcription.languages, sha1(raw), now(), NULL, NULL, NULL FROM ${withRaw(JOB_COLUMNS)}`,
    `INSERT INTO job_records SELECT r.id, r.created_at, raw FROM ${withRaw(RECORD_COLUMNS)}`,
    'INSERT INTO utterances SELECT job_id, source, utterance_idx, u.start, u.end, u.confidence, u.channel, u.speaker, u.language, u.text, ' +
      `job_created_at FROM (${utterances(UTTERANCE_COLUMNS)})`,
    'INSERT INTO words SELECT job_id, source, utterance_idx, idx, w.word, w.start, w."end", w.confidence, job_created_at FROM ' +
      `(SELECT job_id, job_created_at, source, utterance_idx, generate_subscripts(u.words, 1) - 1 AS idx, unnest(u.words) AS w FROM (${utterances(WORD_COLUMNS)}))`,
    `INSERT INTO module_results ${modulesOnce(typed(MODULE_COLUMNS))}`,
  ];
}

/** Floor A's statements, in order, for the NDJSON file at `path` (one transaction): the records typed once into a temporary table. */
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
