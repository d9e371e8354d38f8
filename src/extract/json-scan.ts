/**
 * One pass over a list answer's bytes (valid UTF-8), without building a value: checks that the body
 * is JSON (as JSON.parse would accept it), finds the envelope's `next` and each item's span, and
 * reads each item's heads (the top-level `id` and `created_at` the walk needs). A subclass of
 * ListScanner may read more of each item in the same pass (its `item()`).
 */
import { JsonLexer, JsonSyntaxError, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-lexer.js';

export { JsonSyntaxError };

/** Top-level string members of an item that the walk needs without a parse. */
export type HeadName = 'id' | 'created_at';
export type Heads = Partial<Record<HeadName, string>>;

/** An item of a list body: where its text is, and its heads. */
export interface ItemSpan {
  /** Byte offsets of the item's JSON text in the body: [start, end). */
  readonly start: number;
  readonly end: number;
  /** Top-level string members, the last of a repeated name (as JSON.parse keeps); absent when not strings. */
  readonly heads: Readonly<Heads>;
}

interface EnvelopeScan<I extends ItemSpan = ItemSpan> {
  readonly items: readonly I[];
  /** The envelope's `next`, unread; undefined when it is missing or neither a string nor null. */
  readonly next: string | null | undefined;
  /** `items` is there, once, and an array; `first`/`current` are strings or null when present. */
  readonly envelope: boolean;
}

/** A scanner of list bodies: HeadScanner, or another ListScanner that reads more of each item. */
export type ScannerClass<I extends ItemSpan = ItemSpan> = new (body: Buffer) => ListScanner<I>;

/** Scans `body` as a list envelope, its items read by `Scanner`; throws JsonSyntaxError when it is not JSON. */
export function scanListBody<I extends ItemSpan>(body: Buffer, Scanner: ScannerClass<I>): EnvelopeScan<I> {
  return new Scanner(body).list();
}

/** Reads a list envelope and, through `item()`, each of its items. */
export abstract class ListScanner<I extends ItemSpan> extends JsonLexer {
  list(): EnvelopeScan<I> {
    const buf = this.buf;
    let items: I[] | undefined;
    let itemsArray = false;
    let next: string | null | undefined;
    let envelope = true;
    this.space();
    if (buf[this.pos] !== OPEN_OBJECT) {
      this.skipAny();
      this.end();
      return { items: [], next: undefined, envelope: false };
    }
    if (this.enterObject())
      do {
        const [keyStart, keyEnd, escaped] = this.key();
        // An envelope has a handful of members: their names are simply decoded.
        const name = this.decode(keyStart - 1, keyEnd + 1, escaped);
        const at = buf[this.pos];
        if (name === 'items') {
          // JSON.parse keeps the last of a repeated name: so does this.
          itemsArray = at === OPEN_ARRAY;
          if (itemsArray) items = this.items();
          else this.skipAny();
        } else if (name === 'next') {
          next = at === QUOTE ? this.stringValue() : this.isNull() ? null : undefined;
        } else if (name === 'first' || name === 'current') {
          if (at !== QUOTE && at !== 0x6e) envelope = false;
          this.skipAny();
        } else this.skipAny();
      } while (this.nextMember());
    this.end();
    return { items: items ?? [], next, envelope: envelope && itemsArray && next !== undefined };
  }

  private items(): I[] {
    const out: I[] = [];
    if (this.enterArray())
      do out.push(this.item());
      while (this.nextElement());
    return out;
  }

  /**
   * Reads the item at `pos` (its first byte, white space skipped), leaving `pos` just after it, and
   * returns its span and heads (and whatever else the subclass reads of it).
   */
  protected abstract item(): I;
}

/** Reads each item's heads and skips the rest: what the walk needs. */
export class HeadScanner extends ListScanner<ItemSpan> {
  protected item(): ItemSpan {
    const buf = this.buf;
    const start = this.pos;
    const heads: Heads = {};
    if (buf[this.pos] !== OPEN_OBJECT) {
      this.skipAny();
      return { start, end: this.pos, heads };
    }
    if (this.enterObject())
      do {
        const [keyStart, keyEnd, escaped] = this.key();
        const name = escaped ? this.decode(keyStart - 1, keyEnd + 1, true) : headAt(buf, keyStart, keyEnd);
        if (name === 'id' || name === 'created_at') {
          delete heads[name];
          if (buf[this.pos] === QUOTE) heads[name] = this.stringValue();
          else this.skipAny();
        } else this.skipAny();
      } while (this.nextMember());
    return { start, end: this.pos, heads };
  }
}

const ID = Buffer.from('id');
const CREATED_AT = Buffer.from('created_at');

/** The head an unescaped key at [start, end) names, compared in place; undefined for any other key. */
function headAt(buf: Buffer, start: number, end: number): HeadName | undefined {
  const length = end - start;
  if (length === ID.length && buf.compare(ID, 0, ID.length, start, end) === 0) return 'id';
  if (length === CREATED_AT.length && buf.compare(CREATED_AT, 0, CREATED_AT.length, start, end) === 0)
    return 'created_at';
  return undefined;
}
