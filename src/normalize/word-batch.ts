/**
 * The staged words of a batch, held in typed arrays: a backfill stages millions of them, and plain
 * arrays cost ~100 bytes of heap and three boxed doubles a word for the GC, and a value-by-value
 * copy at every merge (backfill CPU -8 to -17% with these, BENCHMARKS.md, issue 15). They could
 * cross threads by transfer (the sync's decode thread, src/sync/decode-thread.ts). NULL is NO_KEY for `word_key` (keys are >= 0) and NaN for the
 * numbers (a value parsed from JSON is never NaN).
 */

export const STAGED_WORD_COLUMNS = [
  'list',
  'utterance_idx',
  'word_idx',
  'word_key',
  'start',
  'end',
  'confidence',
] as const;

/** `word_key` of a word without text. */
export const NO_KEY = -1;

/** Rows a column first gets when rows are pushed one by one without a reservation. */
const INITIAL_ROWS = 1024;

/** The columns as they cross threads: each array holds `rows` values (its buffer may be longer). */
export interface WordColumns {
  readonly rows: number;
  readonly list: Int32Array<ArrayBuffer>;
  readonly utterance_idx: Int32Array<ArrayBuffer>;
  readonly word_idx: Int32Array<ArrayBuffer>;
  readonly word_key: Int32Array<ArrayBuffer>;
  readonly start: Float64Array<ArrayBuffer>;
  readonly end: Float64Array<ArrayBuffer>;
  readonly confidence: Float64Array<ArrayBuffer>;
}

export class WordBatch {
  readonly table = '_tsync_words';
  readonly names = STAGED_WORD_COLUMNS;
  readonly catalog = 'temp';
  /** Rows held; the columns start empty (no room until rows are reserved or pushed). */
  private count = 0;

  private list = new Int32Array(0);
  private utteranceIdx = new Int32Array(0);
  private wordIdx = new Int32Array(0);
  private wordKey = new Int32Array(0);
  private start = new Float64Array(0);
  private end = new Float64Array(0);
  private confidence = new Float64Array(0);

  get rowCount(): number {
    return this.count;
  }

  /** The columns, each cut to the rows held (views, not copies), in the table's order. */
  columns(): WordColumns {
    const n = this.count;
    return {
      rows: n,
      list: this.list.subarray(0, n),
      utterance_idx: this.utteranceIdx.subarray(0, n),
      word_idx: this.wordIdx.subarray(0, n),
      word_key: this.wordKey.subarray(0, n),
      start: this.start.subarray(0, n),
      end: this.end.subarray(0, n),
      confidence: this.confidence.subarray(0, n),
    };
  }

  /** The columns in the table's order (STAGED_WORD_COLUMNS), cut to the rows held. */
  orderedColumns(): readonly (Int32Array | Float64Array)[] {
    const typed = this.columns();
    return this.names.map((name) => typed[name]);
  }

  /** A batch holding `columns` (from columns() in another thread, transferred): taken over, not copied. */
  static fromColumns(columns: WordColumns): WordBatch {
    const batch = new WordBatch();
    batch.count = columns.rows;
    batch.list = columns.list;
    batch.utteranceIdx = columns.utterance_idx;
    batch.wordIdx = columns.word_idx;
    batch.wordKey = columns.word_key;
    batch.start = columns.start;
    batch.end = columns.end;
    batch.confidence = columns.confidence;
    return batch;
  }

  /** The buffers under the columns: what a postMessage of columns() transfers instead of copying. */
  buffers(): ArrayBuffer[] {
    const arrays = [
      this.list,
      this.utteranceIdx,
      this.wordIdx,
      this.wordKey,
      this.start,
      this.end,
      this.confidence,
    ];
    return arrays.map((array) => array.buffer);
  }

  /**
   * Room for `more` rows beyond those held, exactly: the columns are allocated outside V8's heap, and
   * what doubling left unused stayed allocated until a full collection (RSS +15-20 MiB on a backfill).
   */
  reserve(more: number): void {
    const rows = this.count + more;
    if (rows > this.list.length) this.resize(rows);
  }

  /** `start`, `end`, `confidence`: null or undefined for NULL; `key`: NO_KEY for a word without text. */
  push(
    list: number,
    utteranceIdx: number,
    wordIdx: number,
    key: number,
    start: number | null | undefined,
    end: number | null | undefined,
    confidence: number | null | undefined,
  ): void {
    if (this.count === this.list.length) this.resize(Math.max(INITIAL_ROWS, this.count * 2));
    const i = this.count++;
    this.list[i] = list;
    this.utteranceIdx[i] = utteranceIdx;
    this.wordIdx[i] = wordIdx;
    this.wordKey[i] = key;
    this.start[i] = start ?? Number.NaN;
    this.end[i] = end ?? Number.NaN;
    this.confidence[i] = confidence ?? Number.NaN;
  }

  /**
   * Adds the words of `other` whose list `list` maps to a number (their new list), leaving out those
   * it maps to undefined; `keys` maps their word keys (all kept as they are without it).
   */
  addAll(other: WordBatch, list: (list: number) => number | undefined, keys?: Int32Array): void {
    this.reserve(other.count);
    for (let i = 0; i < other.count; i++) {
      const to = list(other.list[i] as number);
      if (to === undefined) continue;
      const key = other.wordKey[i] as number;
      const j = this.count++;
      this.list[j] = to;
      this.utteranceIdx[j] = other.utteranceIdx[i] as number;
      this.wordIdx[j] = other.wordIdx[i] as number;
      this.wordKey[j] = keys && key !== NO_KEY ? (keys[key] as number) : key;
      this.start[j] = other.start[i] as number;
      this.end[j] = other.end[i] as number;
      this.confidence[j] = other.confidence[i] as number;
    }
  }

  /** Columns of `size` rows, those held copied. */
  private resize(size: number): void {
    const int = (from: Int32Array) => {
      const to = new Int32Array(size);
      to.set(from.subarray(0, this.count));
      return to;
    };
    const float = (from: Float64Array) => {
      const to = new Float64Array(size);
      to.set(from.subarray(0, this.count));
      return to;
    };
    this.list = int(this.list);
    this.utteranceIdx = int(this.utteranceIdx);
    this.wordIdx = int(this.wordIdx);
    this.wordKey = int(this.wordKey);
    this.start = float(this.start);
    this.end = float(this.end);
    this.confidence = float(this.confidence);
  }
}
