/**
 * Maps a validated job record onto the rows of sql/001_tables.sql: one `jobs` row, its utterances
 * and words (from the transcription, each translation entry and the diarization), and one
 * `module_results` row per feature result. Column lists here follow the tables' column order.
 * Pure JS: the loader (src/store/loader.ts) appends these columns to DuckDB.
 */
import type { JobRecord } from '../records/job-record.js';
import type { Utterance } from '../records/shapes.js';
import { instantMicros } from './instant.js';
import { type Cell, TableBatch, type TableWire } from './table-batch.js';
import { NO_KEY, WordBatch, type WordColumns } from './word-batch.js';

// biome-ignore format: one line per group of columns of the table
const JOB_COLUMNS = [
  'id', 'kind', 'status', 'version', 'request_id', 'created_at', 'completed_at', 'error_code',
  'custom_metadata', 'post_session_metadata', 'request_params',
  'file_id', 'filename', 'file_source', 'file_audio_duration', 'number_of_channels',
  'audio_duration', 'billing_time', 'transcription_time', 'number_of_distinct_channels',
  'full_transcript', 'languages', 'raw', 'content_hash', 'synced_at', 'deleted_at',
] as const;

const UTTERANCE_COLUMNS = [
  'job_id',
  'source',
  'utterance_idx',
  'start',
  'end',
  'confidence',
  'channel',
  'speaker',
  'language',
  'text',
] as const;

/**
 * Words are staged, not appended to `words` directly: the appender writes each string value with one
 * call into DuckDB, and repeating a job's id and source, and the word itself, on each of millions
 * of words cost more than the rest of the load (BENCHMARKS.md). A staged word carries the number of
 * its utterance list (`list`, which `_tsync_lists` maps to the job and source) and of its text in
 * the batch's dictionary (`word_key`, `_tsync_dict`); sql/queries/loader-stage-move-words.sql
 * joins them into `words` inside DuckDB. Their columns (word-batch.ts) are typed arrays.
 */
const STAGED_LIST_COLUMNS = ['list', 'job_id', 'source'] as const;
const STAGED_DICT_COLUMNS = ['word_key', 'word'] as const;

const MODULE_COLUMNS = [
  'job_id',
  'module',
  'success',
  'is_empty',
  'exec_time',
  'error_status_code',
  'error_exception',
  'error_message',
  'results',
] as const;

/** Members of `result` that are columns of `jobs`, not module results. */
const NOT_MODULES = new Set(['metadata', 'transcription']);

/** A JobRows as plain data (JobRows.toWire), to cross to another thread. */
export interface JobRowsWire {
  readonly jobs: TableWire;
  readonly utterances: TableWire;
  readonly lists: TableWire;
  readonly dict: TableWire;
  readonly modules: TableWire;
  readonly words: WordColumns;
}

/** A valid record on its way to rows. */
export interface PreparedJob {
  readonly record: JobRecord;
  /** The record's JSON text, stored as `raw` and hashed. */
  readonly raw: string;
  readonly hash: string;
}

export class JobRows {
  readonly jobs: TableBatch<typeof JOB_COLUMNS>;
  readonly utterances: TableBatch<typeof UTTERANCE_COLUMNS>;
  /** Staged into temp tables, then copied into `words` by SQL (see STAGED_LIST_COLUMNS). */
  readonly words: WordBatch;
  readonly lists: TableBatch<typeof STAGED_LIST_COLUMNS>;
  readonly dict: TableBatch<typeof STAGED_DICT_COLUMNS>;
  /** word text -> word_key of this batch's dictionary; built from `dict` when first asked. */
  private keysOfWords: Map<string, number> | undefined;
  readonly modules: TableBatch<typeof MODULE_COLUMNS>;

  /** `words`: staged words already held (fromWire); none by default. */
  constructor(words = new WordBatch()) {
    this.jobs = new TableBatch('jobs', JOB_COLUMNS);
    this.utterances = new TableBatch('utterances', UTTERANCE_COLUMNS);
    this.words = words;
    this.lists = new TableBatch('_tsync_lists', STAGED_LIST_COLUMNS, 'temp');
    this.dict = new TableBatch('_tsync_dict', STAGED_DICT_COLUMNS, 'temp');
    this.modules = new TableBatch('module_results', MODULE_COLUMNS);
    this.keysOfWords = new Map();
  }

  /** The rows as plain data for postMessage, and the word columns' buffers to transfer with them. */
  toWire(): { wire: JobRowsWire; transfer: ArrayBuffer[] } {
    const wire: JobRowsWire = {
      jobs: this.jobs.toWire(),
      utterances: this.utterances.toWire(),
      lists: this.lists.toWire(),
      dict: this.dict.toWire(),
      modules: this.modules.toWire(),
      words: this.words.columns(),
    };
    return { wire, transfer: this.words.buffers() };
  }

  /** The rows of `wire` (toWire's, after the message crossed), taken over. */
  static fromWire(wire: JobRowsWire): JobRows {
    const rows = new JobRows(WordBatch.fromColumns(wire.words));
    rows.jobs.restore(wire.jobs);
    rows.utterances.restore(wire.utterances);
    rows.lists.restore(wire.lists);
    rows.dict.restore(wire.dict);
    rows.modules.restore(wire.modules);
    // Built again from the dictionary if rows are ever appended to it.
    rows.keysOfWords = undefined;
    return rows;
  }

  /** Sets `synced_at` of every job row (rows prepared ahead of their write carry null until then). */
  stamp(syncedAt: Cell): void {
    this.jobs.columns.synced_at.fill(syncedAt);
  }

  /** Adds the rows of `other` after these, renumbering its utterance lists and dictionary words. */
  append(other: JobRows): void {
    const lists = this.lists.rowCount;
    const shiftList = { columns: ['list'] as const, value: (list: Cell) => (list as number) + lists };
    const keys = Int32Array.from(other.dict.columns.word as string[], (word) => this.wordKey(word));
    this.jobs.addAll(other.jobs);
    this.utterances.addAll(other.utterances);
    this.modules.addAll(other.modules);
    this.lists.addAll(other.lists, shiftList);
    this.words.addAll(other.words, (list) => list + lists, keys);
  }

  /**
   * The rows of the jobs in `ids` only (the loader's new and changed jobs), their utterance lists
   * numbered anew. Copies values; maps no record again. The dictionary is kept whole, so words keep
   * their keys (a lookup per word cost as much as mapping them): it may hold words of jobs left out,
   * which the words' join never asks for.
   */
  only(ids: ReadonlySet<string>): JobRows {
    const out = new JobRows();
    const jobIds = this.jobs.columns.id;
    out.jobs.addAll(this.jobs, undefined, (row) => ids.has(jobIds[row] as string));
    const utteranceJobs = this.utterances.columns.job_id;
    out.utterances.addAll(this.utterances, undefined, (row) => ids.has(utteranceJobs[row] as string));
    const moduleJobs = this.modules.columns.job_id;
    out.modules.addAll(this.modules, undefined, (row) => ids.has(moduleJobs[row] as string));
    // A list's number is its row (addUtterances, append): old number -> new number of the kept ones.
    const lists = new Map<number, number>();
    const listJobs = this.lists.columns.job_id;
    for (let list = 0; list < this.lists.rowCount; list++) {
      if (ids.has(listJobs[list] as string)) lists.set(list, lists.size);
    }
    const renumber = {
      columns: ['list'] as const,
      value: (list: Cell) => lists.get(list as number) ?? null,
    };
    out.lists.addAll(this.lists, renumber, (row) => lists.has(row));
    out.dict.addAll(this.dict);
    // Its word -> key map is built again from the dictionary if rows are ever appended to it.
    out.keysOfWords = undefined;
    out.words.addAll(this.words, (list) => lists.get(list));
    return out;
  }

  /** The key of `word` in this batch's dictionary, added when new. */
  private wordKey(word: string): number {
    const keys = this.wordKeys();
    let key = keys.get(word);
    if (key === undefined) {
      key = this.dict.rowCount;
      keys.set(word, key);
      this.dict.push({ word_key: key, word });
    }
    return key;
  }

  private wordKeys(): Map<string, number> {
    if (this.keysOfWords === undefined) {
      const words = this.dict.columns.word as string[];
      this.keysOfWords = new Map(words.map((word, key) => [word, key]));
    }
    return this.keysOfWords;
  }

  /** Makes room for the words of `records` at once, before they are added (word-batch.ts says why). */
  reserveWords(records: Iterable<JobRecord>): void {
    let words = 0;
    for (const record of records) {
      const result = record.result;
      if (!result) continue;
      words += wordCount(result.transcription?.utterances);
      for (const entry of result.translation?.results ?? []) words += wordCount(entry.utterances);
      if (record.kind === 'pre-recorded') words += wordCount(record.result?.diarization?.results);
    }
    this.words.reserve(words);
  }

  add(job: PreparedJob, syncedAt: Cell): void {
    const { record } = job;
    this.addJob(job, syncedAt);
    const result = record.result;
    if (!result) return;
    // Only a pre-recorded result has a (validated) diarization; a live record that carries one keeps
    // it whole in module_results, like any member the spec does not give it.
    const diarized = record.kind === 'pre-recorded' && Boolean(record.result?.diarization);
    this.addUtterances(record.id, 'transcription', result.transcription?.utterances);
    const entries = result.translation?.results ?? [];
    const sources = translationSources(entries.map((entry) => entry.languages?.[0]));
    for (const [i, entry] of entries.entries()) {
      this.addUtterances(record.id, sources[i] ?? `translation:${i}`, entry.utterances);
    }
    if (diarized) this.addUtterances(record.id, 'diarization', record.result?.diarization?.results);
    this.addModules(record.id, result as Record<string, unknown>, diarized);
  }

  private addJob({ record, raw, hash }: PreparedJob, syncedAt: Cell): void {
    const file = record.file;
    const metadata = record.result?.metadata;
    const transcription = record.result?.transcription;
    this.jobs.push({
      id: record.id,
      kind: record.kind,
      status: record.status,
      version: record.version ?? null,
      request_id: record.request_id ?? null,
      created_at: instantMicros(record.created_at),
      completed_at: record.completed_at ? instantMicros(record.completed_at) : null,
      error_code: record.error_code ?? null,
      custom_metadata: jsonOrNull(record.custom_metadata),
      post_session_metadata: jsonOrNull(record.post_session_metadata),
      request_params: jsonOrNull(record.request_params),
      file_id: file?.id ?? null,
      filename: file?.filename ?? null,
      file_source: file?.source ?? null,
      file_audio_duration: file?.audio_duration ?? null,
      number_of_channels: file?.number_of_channels ?? null,
      audio_duration: metadata?.audio_duration ?? null,
      billing_time: metadata?.billing_time ?? null,
      transcription_time: metadata?.transcription_time ?? null,
      number_of_distinct_channels: metadata?.number_of_distinct_channels ?? null,
      full_transcript: transcription?.full_transcript ?? null,
      languages: transcription?.languages ? [...transcription.languages] : null,
      raw,
      content_hash: hash,
      synced_at: syncedAt,
      deleted_at: null,
    });
  }

  private addUtterances(jobId: string, source: string, list: readonly Utterance[] | null | undefined): void {
    if (!list) return;
    const listKey = this.lists.rowCount;
    this.lists.push({ list: listKey, job_id: jobId, source });
    for (let u = 0; u < list.length; u++) {
      const utterance = list[u] as Utterance;
      this.utterances.push({
        job_id: jobId,
        source,
        utterance_idx: u,
        start: utterance.start ?? null,
        end: utterance.end ?? null,
        confidence: utterance.confidence ?? null,
        channel: utterance.channel ?? null,
        speaker: utterance.speaker ?? null,
        language: utterance.language ?? null,
        text: utterance.text ?? null,
      });
      this.addWords(listKey, u, utterance);
    }
  }

  /** The hot loop: millions of words, so columns are pushed directly. */
  private addWords(listKey: number, utteranceIdx: number, utterance: Utterance): void {
    const words = utterance.words;
    if (!words) return;
    for (let w = 0; w < words.length; w++) {
      const word = words[w];
      const text = word?.word;
      const key = typeof text === 'string' ? this.wordKey(text) : NO_KEY;
      this.words.push(listKey, utteranceIdx, w, key, word?.start, word?.end, word?.confidence);
    }
  }

  private addModules(jobId: string, result: Record<string, unknown>, diarized: boolean): void {
    for (const [key, value] of Object.entries(result)) {
      if (NOT_MODULES.has(key) || value === null || value === undefined) continue;
      this.modules.push(moduleRow(jobId, key, value, diarized));
    }
    const sentences = (result['transcription'] as { sentences?: unknown[] | null } | null | undefined)
      ?.sentences;
    for (const entry of sentences ?? [])
      this.modules.push(moduleRow(jobId, 'transcription.sentences', entry, false));
  }
}

/** Words of the utterances of one list (what addWords will push for it). */
function wordCount(list: readonly Utterance[] | null | undefined): number {
  let words = 0;
  for (const utterance of list ?? []) words += utterance.words?.length ?? 0;
  return words;
}

/**
 * 'translation:<lang>' by each entry's first language; 'translation:<i>' (its position) when it has
 * none or an earlier entry already took that language, so (job, source) stays unique.
 */
export function translationSources(firstLanguages: readonly (string | null | undefined)[]): string[] {
  const taken = new Set<string>();
  return firstLanguages.map((lang, i) => {
    const source = lang ? `translation:${lang}` : `translation:${i}`;
    if (!lang || taken.has(source)) return `translation:${i}`;
    taken.add(source);
    return source;
  });
}

type ModuleRow = { readonly [K in (typeof MODULE_COLUMNS)[number]]: Cell };

/**
 * One feature result. Members that are not wrapped module results (a live job's `messages`, or a
 * future feature of another shape) are kept whole in `results`.
 */
function moduleRow(jobId: string, module: string, value: unknown, diarized: boolean): ModuleRow {
  const wrapper = isObject(value) ? value : undefined;
  const error = wrapper && isObject(wrapper['error']) ? wrapper['error'] : undefined;
  return {
    job_id: jobId,
    module,
    success: typed(wrapper?.['success'], 'boolean'),
    is_empty: typed(wrapper?.['is_empty'], 'boolean'),
    exec_time: typed(wrapper?.['exec_time'], 'number'),
    error_status_code: int32OrNull(error?.['status_code']),
    error_exception: typed(error?.['exception'], 'string'),
    error_message: typed(error?.['message'], 'string'),
    results: jsonOrNull(wrapper ? moduleResults(module, wrapper, diarized) : value),
  };
}

/**
 * What goes to `results`: NER's `entity`; utterances left out where they went to utterances/words
 * (`diarized`: a pre-recorded job's diarization).
 */
function moduleResults(module: string, wrapper: Record<string, unknown>, diarized: boolean): unknown {
  if (module === 'named_entity_recognition') return wrapper['entity'];
  if (module === 'diarization' && diarized) return null;
  if (module === 'translation' && Array.isArray(wrapper['results'])) {
    return wrapper['results'].map((entry: unknown) => {
      if (!isObject(entry)) return entry;
      const { utterances: _left, ...rest } = entry;
      return rest;
    });
  }
  return wrapper['results'];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typed(value: unknown, type: 'boolean' | 'number' | 'string'): Cell {
  return typeof value === type ? (value as Cell) : null;
}

/** The INTEGER column takes only 32-bit integers; a module of unknown shape may hold anything. */
function int32OrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= 0x7fffffff ? value : null;
}

function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
