/**
 * Reading JSON bytes token by token without building values: JSON's grammar as JSON.parse accepts
 * it, and the one walk of objects and arrays that the readers of a body drive (json-scan.ts, the
 * record scanner of src/normalize). Positions are byte offsets into the UTF-8 body; a byte that
 * breaks the grammar throws JsonSyntaxError.
 */

/** The body is not JSON; `at` is the byte offset where reading stopped. */
export class JsonSyntaxError extends Error {
  constructor(readonly at: number) {
    super(`not JSON: unexpected byte at offset ${at}`);
    this.name = 'JsonSyntaxError';
  }
}

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
export const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
export const INT32_MAX = 2 ** 31 - 1;
export const INT32_MIN = -(2 ** 31);
/** Digits beyond which a number literal is parsed to learn whether it is finite. */
const SAFE_DIGITS = 300;

/** 1 at each byte that makes an escape of two bytes after a backslash: " \ / b f n r t. */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of [QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]) SHORT_ESCAPE[c] = 1;

/**
 * A cursor over a body. Subclasses read values at `pos`; these methods read the tokens and skip
 * whole values (any depth, no recursion). `rareEscape` turns true on a `\u` escape of a control
 * character or a surrogate half (a reader that cares resets it).
 */
export class JsonLexer {
  protected pos = 0;
  protected rareEscape = false;
  /** Container kinds of skipAny: 1 object, 2 array. */
  private stack = new Uint8Array(64);

  constructor(protected readonly buf: Buffer) {}

  /** Nothing but white space may follow the top-level value. */
  protected end(): void {
    this.space();
    if (this.pos !== this.buf.length) throw new JsonSyntaxError(this.pos);
  }

  protected space(): void {
    const buf = this.buf;
    let c = buf[this.pos];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = buf[++this.pos];
  }

  /**
   * A member name and the colon after it, `pos` then at the value (white space skipped): [start,
   * end) of the name's characters, and whether they hold escapes.
   */
  protected key(): [number, number, boolean] {
    this.space();
    if (this.buf[this.pos] !== QUOTE) throw new JsonSyntaxError(this.pos);
    const start = this.pos + 1;
    const escaped = this.string();
    const end = this.pos - 1;
    this.space();
    if (this.buf[this.pos] !== COLON) throw new JsonSyntaxError(this.pos);
    this.pos++;
    this.space();
    return [start, end, escaped];
  }

  /** The string at `pos` (its opening quote); leaves `pos` after its closing quote. True when it holds escapes. */
  protected string(): boolean {
    const buf = this.buf;
    let i = this.pos + 1;
    let escaped = false;
    for (;;) {
      const c = buf[i];
      if (c === QUOTE) break;
      if (c === undefined || c < 0x20) throw new JsonSyntaxError(i);
      if (c === BACKSLASH) {
        escaped = true;
        i = this.escape(i);
      } else i++;
    }
    this.pos = i + 1;
    return escaped;
  }

  /** The escape at `i` (its backslash); returns the index after it. */
  private escape(i: number): number {
    const c = this.buf[i + 1];
    if (c === 0x75) {
      let code = 0;
      for (let k = i + 2; k < i + 6; k++) {
        const digit = hexValue(this.buf[k]);
        if (digit < 0) throw new JsonSyntaxError(k);
        code = code * 16 + digit;
      }
      // A NUL, a control character or a surrogate half.
      if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) this.rareEscape = true;
      return i + 6;
    }
    if (c !== undefined && SHORT_ESCAPE[c] === 1) return i + 2;
    throw new JsonSyntaxError(i + 1);
  }

  protected decode(start: number, end: number, escaped: boolean): string {
    return escaped
      ? (JSON.parse(this.buf.toString('utf8', start, end)) as string)
      : this.buf.toString('utf8', start + 1, end - 1);
  }

  protected stringValue(): string {
    const start = this.pos;
    const escaped = this.string();
    return this.decode(start, this.pos, escaped);
  }

  /** Reads the value at `pos`; true when it was `null`. */
  protected isNull(): boolean {
    const isNull = this.buf[this.pos] === 0x6e;
    this.skipAny();
    return isNull;
  }

  /** true, false or null at `pos`. */
  protected literal(): void {
    const buf = this.buf;
    const p = this.pos;
    const c = buf[p];
    let length = 0;
    if (c === 0x74 && buf[p + 1] === 0x72 && buf[p + 2] === 0x75 && buf[p + 3] === 0x65) length = 4;
    else if (
      c === 0x66 &&
      buf[p + 1] === 0x61 &&
      buf[p + 2] === 0x6c &&
      buf[p + 3] === 0x73 &&
      buf[p + 4] === 0x65
    )
      length = 5;
    else if (c === 0x6e && buf[p + 1] === 0x75 && buf[p + 2] === 0x6c && buf[p + 3] === 0x6c) length = 4;
    if (length === 0) throw new JsonSyntaxError(p);
    this.pos = p + length;
  }

  /**
   * The number at `pos`. Returns its digit count when it is surely finite (no exponent, few digits),
   * -1 when it must be parsed to know.
   */
  protected number(): number {
    const buf = this.buf;
    let i = this.pos;
    if (buf[i] === MINUS) i++;
    const intStart = i;
    let c = buf[i] ?? 0;
    if (c === ZERO) c = buf[++i] ?? 0;
    else if (c > ZERO && c <= NINE) {
      do c = buf[++i] ?? 0;
      while (c >= ZERO && c <= NINE);
    } else throw new JsonSyntaxError(i);
    let digits = i - intStart;
    if (c === DOT) {
      const fraction = ++i;
      c = buf[i] ?? 0;
      while (c >= ZERO && c <= NINE) c = buf[++i] ?? 0;
      if (i === fraction) throw new JsonSyntaxError(i);
      digits += i - fraction;
    }
    let sure = true;
    if (c === LOWER_E || c === UPPER_E) {
      sure = false;
      c = buf[++i] ?? 0;
      if (c === PLUS || c === MINUS) c = buf[++i] ?? 0;
      const exponent = i;
      while (c >= ZERO && c <= NINE) c = buf[++i] ?? 0;
      if (i === exponent) throw new JsonSyntaxError(i);
    }
    this.pos = i;
    return sure && digits < SAFE_DIGITS ? digits : -1;
  }

  /**
   * The walk of an object, written once for every reader: `enterObject` at its `{` is true when a
   * member follows (read its `key`, then its value); after each value `nextMember` is true when
   * another follows and false once the closing `}` is read. A byte out of place throws.
   */
  protected enterObject(): boolean {
    this.pos++;
    this.space();
    if (this.buf[this.pos] !== CLOSE_OBJECT) return true;
    this.pos++;
    return false;
  }

  protected nextMember(): boolean {
    this.space();
    const c = this.buf[this.pos++];
    if (c === COMMA) return true;
    if (c === CLOSE_OBJECT) return false;
    throw new JsonSyntaxError(this.pos - 1);
  }

  /** Of an array, likewise: `enterArray` at its `[`, `nextElement` after each element (`pos` then at the next). */
  protected enterArray(): boolean {
    this.pos++;
    this.space();
    if (this.buf[this.pos] !== CLOSE_ARRAY) return true;
    this.pos++;
    return false;
  }

  protected nextElement(): boolean {
    this.space();
    const c = this.buf[this.pos++];
    if (c === COMMA) {
      this.space();
      return true;
    }
    if (c === CLOSE_ARRAY) return false;
    throw new JsonSyntaxError(this.pos - 1);
  }

  /** Reads any JSON value at `pos`, checking only that it is JSON (no recursion: any depth). */
  protected skipAny(): void {
    const buf = this.buf;
    let depth = 0;
    for (;;) {
      // A value.
      this.space();
      const c = buf[this.pos];
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        this.pos++;
        this.space();
        const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
        if (buf[this.pos] === close) this.pos++;
        else {
          if (depth === this.stack.length) {
            const grown = new Uint8Array(depth * 2);
            grown.set(this.stack);
            this.stack = grown;
          }
          this.stack[depth++] = c === OPEN_OBJECT ? 1 : 2;
          if (c === OPEN_OBJECT) this.key();
          continue;
        }
      } else if (c === QUOTE) this.string();
      else if (c === 0x74 || c === 0x66 || c === 0x6e) this.literal();
      else this.number();
      // After a value: close what ends here, then a comma leads to the next value.
      for (;;) {
        if (depth === 0) return;
        this.space();
        const after = buf[this.pos];
        const inObject = this.stack[depth - 1] === 1;
        if (after === COMMA) {
          this.pos++;
          if (inObject) this.key();
          break;
        }
        if (after === (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) {
          this.pos++;
          depth--;
          continue;
        }
        throw new JsonSyntaxError(this.pos);
      }
    }
  }
}

function hexValue(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= ZERO && c <= NINE) return c - ZERO;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
