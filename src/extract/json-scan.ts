/**
 * One pass over a list answer's bytes, without building a value: checks that the body is JSON
 * (as JSON.parse would accept it), finds the envelope's `next` and each item's span, reads each
 * item's heads (id, kind, status, created_at) and checks each item against a shape (json-shape.ts).
 * DuckDB parses the items themselves later (src/load); the walk needs only what this returns.
 *
 * Per item it says whether the item meets the shape (`checked`: valid without a parse) and whether
 * DuckDB reads it as JSON.parse would (`plain`: no repeated or escaped member names, no `\u` escape
 * of a control character or a surrogate). Either false sends the item to JSON.parse and the schema.
 *
 * The body must be valid UTF-8 (list-body.ts decodes one that is not, as the client always did).
 */
import type { HeadName, ObjectRule, Shape } from './json-shape.js';

export interface ItemScan {
  /** Byte offsets of the item's JSON text in the body: [start, end). */
  readonly start: number;
  readonly end: number;
  /** Meets the item shape: valid as it is, no parse needed. */
  readonly checked: boolean;
  /** DuckDB reads the text as JSON.parse would (see above). */
  readonly plain: boolean;
  /** Top-level string members, the last of a repeated name (as JSON.parse keeps); absent when not strings. */
  readonly heads: Readonly<Partial<Record<HeadName, string>>>;
  /** Names of the non-null members of the objects whose rule asks for them (ObjectRule.names), in order. */
  readonly names: readonly string[];
}

export interface EnvelopeScan {
  readonly items: readonly ItemScan[];
  /** The envelope's `next`, unread; undefined when it is missing or neither a string nor null. */
  readonly next: string | null | undefined;
  /** `items` is there, once, and an array; `first`/`current` are strings or null when present. */
  readonly envelope: boolean;
}

/** The body is not JSON; `at` is the byte offset where reading stopped. */
export class JsonSyntaxError extends Error {
  constructor(readonly at: number) {
    super(`not JSON: unexpected byte at offset ${at}`);
    this.name = 'JsonSyntaxError';
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);
/** Digits beyond which a number literal is parsed to learn whether it is finite. */
const SAFE_DIGITS = 300;

/** Scans `body` as a list envelope whose items must meet `item`; throws JsonSyntaxError when it is not JSON. */
export function scanListBody(body: Buffer, item: Shape): EnvelopeScan {
  return new Scanner(body).envelope(item);
}

type Heads = Partial<Record<HeadName, string>>;

/**
 * Visits of objects, numbered across scans so that ObjectRule.seen needs no clearing. After 2^31
 * visits numbers repeat: a stale slot can then only make an item look less valid (parsed), never more.
 */
let visits = 0;

class Scanner {
  private pos = 0;
  /** Of the record being read. */
  private checked = true;
  private plain = true;
  private heads: Heads = {};
  private names: string[] = [];
  /** Container kinds of skipAny: 1 object, 2 array. */
  private stack = new Uint8Array(64);

  constructor(private readonly buf: Buffer) {}

  envelope(item: Shape): EnvelopeScan {
    const buf = this.buf;
    let items: ItemScan[] | undefined;
    let itemsArray = false;
    let next: string | null | undefined;
    let envelope = true;
    this.space();
    if (buf[this.pos] !== OPEN_OBJECT) {
      this.skipAny();
      this.end();
      return { items: [], next: undefined, envelope: false };
    }
    this.pos++;
    this.space();
    if (buf[this.pos] === CLOSE_OBJECT) this.pos++;
    else
      for (;;) {
        const [keyStart, keyEnd, escaped] = this.key();
        // An envelope has a handful of members: their names are simply decoded.
        const name = escaped
          ? (JSON.parse(buf.toString('utf8', keyStart - 1, keyEnd + 1)) as string)
          : buf.toString('utf8', keyStart, keyEnd);
        this.space();
        const at = buf[this.pos];
        if (name === 'items') {
          // JSON.parse keeps the last of a repeated name: so does this.
          itemsArray = at === OPEN_ARRAY;
          if (itemsArray) items = this.records(item);
          else this.skipAny();
        } else if (name === 'next') {
          next = at === QUOTE ? this.stringValue() : this.isNull() ? null : undefined;
        } else if (name === 'first' || name === 'current') {
          if (at !== QUOTE && at !== 0x6e) envelope = false;
          this.skipAny();
        } else this.skipAny();
        this.space();
        const c = buf[this.pos];
        this.pos++;
        if (c === COMMA) continue;
        if (c === CLOSE_OBJECT) break;
        throw new JsonSyntaxError(this.pos - 1);
      }
    this.end();
    return { items: items ?? [], next, envelope: envelope && itemsArray && next !== undefined };
  }

  /** Nothing but white space may follow the top-level value. */
  private end(): void {
    this.space();
    if (this.pos !== this.buf.length) throw new JsonSyntaxError(this.pos);
  }

  /** The array at `pos`, each element a record. */
  private records(item: Shape): ItemScan[] {
    const buf = this.buf;
    const out: ItemScan[] = [];
    this.pos++;
    this.space();
    if (buf[this.pos] === CLOSE_ARRAY) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.space();
      const start = this.pos;
      this.checked = true;
      this.plain = true;
      this.heads = {};
      this.names = [];
      this.value(item, undefined);
      out.push({
        start,
        end: this.pos,
        checked: this.checked,
        plain: this.plain,
        heads: this.heads,
        names: this.names,
      });
      this.space();
      const c = buf[this.pos];
      this.pos++;
      if (c === COMMA) continue;
      if (c === CLOSE_ARRAY) return out;
      throw new JsonSyntaxError(this.pos - 1);
    }
  }

  private space(): void {
    const buf = this.buf;
    let c = buf[this.pos];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = buf[++this.pos];
  }

  /** Checks the value at `pos` against `shape`; `head`: the record head a string value is kept as. */
  private value(shape: Shape, head: HeadName | undefined): void {
    this.space();
    const c = this.buf[this.pos];
    if (c === QUOTE) {
      const start = this.pos;
      const escaped = this.string();
      if (head !== undefined) this.heads[head] = this.decode(start, this.pos, escaped);
      if (shape.any) return;
      const rule = shape.string;
      if (rule === undefined) this.checked = false;
      else if (rule.nonEmpty && this.pos === start + 2) this.checked = false;
      else if (rule.test !== undefined && !rule.test(this.decode(start, this.pos, escaped)))
        this.checked = false;
      return;
    }
    if (shape.any) {
      this.skipAny();
      return;
    }
    if (c === OPEN_OBJECT) {
      if (shape.object !== undefined) this.object(shape.object, shape.record);
      else {
        this.checked = false;
        this.skipAny();
      }
    } else if (c === OPEN_ARRAY) {
      if (shape.array !== undefined) this.array(shape.array);
      else {
        this.checked = false;
        this.skipAny();
      }
    } else if (c === 0x74 || c === 0x66) {
      this.literal();
      if (!shape.boolean) this.checked = false;
    } else if (c === 0x6e) {
      this.literal();
      if (!shape.nullable) this.checked = false;
    } else {
      const start = this.pos;
      const plainDigits = this.number();
      const rule = shape.number;
      if (rule === undefined) this.checked = false;
      else if (rule.int32 || plainDigits < 0) {
        const value = Number(this.buf.toString('latin1', start, this.pos));
        const ok = rule.int32
          ? Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX
          : Number.isFinite(value);
        if (!ok) this.checked = false;
      }
    }
  }

  private object(rule: ObjectRule, isRecord: boolean): void {
    const buf = this.buf;
    visits = visits === INT32_MAX ? 1 : visits + 1;
    const visit = visits;
    const seen = rule.seen;
    let found = 0;
    /** Names met that are not members: one, then a set. */
    let others: string | Set<string> | undefined;
    this.pos++;
    this.space();
    if (buf[this.pos] === CLOSE_OBJECT) this.pos++;
    else
      for (;;) {
        const [keyStart, keyEnd, escaped] = this.key();
        let member = escaped ? undefined : lookup(rule, buf, keyStart, keyEnd);
        let name: string | undefined;
        if (escaped) {
          // An escaped name may stand for a member's: match it decoded, and let JSON.parse judge.
          this.plain = false;
          name = JSON.parse(buf.toString('utf8', keyStart - 1, keyEnd + 1)) as string;
          member = rule.members.find((m) => m.name === name);
        }
        if (rule.names) {
          this.space();
          if (buf[this.pos] !== 0x6e)
            this.names.push(member?.name ?? name ?? buf.toString('utf8', keyStart, keyEnd));
        }
        if (member === undefined) {
          // A repeated name that is not a member's: DuckDB keeps both where JSON.parse keeps the last.
          const other = name ?? buf.toString('utf8', keyStart, keyEnd);
          if (others === undefined) others = other;
          else if (typeof others === 'string') {
            if (others === other) this.plain = false;
            others = new Set([others, other]);
          } else if (others.has(other)) this.plain = false;
          else others.add(other);
          this.value(rule.rest, undefined);
        } else {
          if (seen[member.index] === visit) this.plain = false;
          else {
            seen[member.index] = visit;
            if (member.required) found++;
          }
          const head = isRecord ? member.head : undefined;
          if (head !== undefined) delete this.heads[head];
          this.value(member.shape, head);
        }
        this.space();
        const c = buf[this.pos];
        this.pos++;
        if (c === COMMA) continue;
        if (c === CLOSE_OBJECT) break;
        throw new JsonSyntaxError(this.pos - 1);
      }
    if (found < rule.required) this.checked = false;
  }

  private array(element: Shape): void {
    const buf = this.buf;
    this.pos++;
    this.space();
    if (buf[this.pos] === CLOSE_ARRAY) {
      this.pos++;
      return;
    }
    for (;;) {
      this.value(element, undefined);
      this.space();
      const c = buf[this.pos];
      this.pos++;
      if (c === COMMA) continue;
      if (c === CLOSE_ARRAY) return;
      throw new JsonSyntaxError(this.pos - 1);
    }
  }

  /** A member name and the colon after it: [start, end) of its characters, and whether it holds escapes. */
  private key(): [number, number, boolean] {
    this.space();
    if (this.buf[this.pos] !== QUOTE) throw new JsonSyntaxError(this.pos);
    const start = this.pos + 1;
    const escaped = this.string();
    const end = this.pos - 1;
    this.space();
    if (this.buf[this.pos] !== COLON) throw new JsonSyntaxError(this.pos);
    this.pos++;
    return [start, end, escaped];
  }

  /** The string at `pos` (its opening quote); leaves `pos` after its closing quote. True when it holds escapes. */
  private string(): boolean {
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
      // A NUL, a control character or a surrogate half: DuckDB may read these otherwise.
      if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) this.plain = false;
      return i + 6;
    }
    // " \ / b f n r t
    if (
      c === QUOTE ||
      c === BACKSLASH ||
      c === 0x2f ||
      c === 0x62 ||
      c === 0x66 ||
      c === 0x6e ||
      c === 0x72 ||
      c === 0x74
    )
      return i + 2;
    throw new JsonSyntaxError(i + 1);
  }

  private decode(start: number, end: number, escaped: boolean): string {
    return escaped
      ? (JSON.parse(this.buf.toString('utf8', start, end)) as string)
      : this.buf.toString('utf8', start + 1, end - 1);
  }

  private stringValue(): string {
    const start = this.pos;
    const escaped = this.string();
    return this.decode(start, this.pos, escaped);
  }

  /** Reads the value at `pos`; true when it was `null`. */
  private isNull(): boolean {
    const isNull = this.buf[this.pos] === 0x6e;
    this.skipAny();
    return isNull;
  }

  /** true, false or null at `pos`. */
  private literal(): void {
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
  private number(): number {
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

  /** Reads any JSON value at `pos`, checking only that it is JSON (no recursion: any depth). */
  private skipAny(): void {
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

function lookup(
  rule: ObjectRule,
  buf: Buffer,
  start: number,
  end: number,
): ObjectRule['members'][number] | undefined {
  const candidates = rule.byLength[end - start];
  if (candidates === undefined) return undefined;
  for (const member of candidates) {
    const name = member.bytes;
    let i = 0;
    while (i < name.length && buf[start + i] === name[i]) i++;
    if (i === name.length) return member;
  }
  return undefined;
}

function hexValue(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= ZERO && c <= NINE) return c - ZERO;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
