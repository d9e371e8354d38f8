/**
 * The job record's side of the list scan: a ListScanner (src/extract/json-scan.ts) whose `item()`
 * checks each item against the record's shape (record-shape.ts) in the scan's one pass over the
 * bytes, so that page-records.ts can take a record as it is, without a JSON.parse.
 *
 * Per item it says whether the item meets the shape (`checked`: valid without a parse) and whether
 * DuckDB reads it as JSON.parse would (`plain`: no repeated or escaped member names, no `\u` escape
 * of a control character or a surrogate). Either false sends the item to JSON.parse and the schema.
 */
import { INT32_MAX, INT32_MIN, ListScanner, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../extract/index.js';
import type { HeadName, Member, ObjectRule, Shape } from './json-shape.js';
import { RECORD_SHAPE } from './record-shape.js';

type Heads = Partial<Record<HeadName, string>>;

/** An item as the record scanner read it: an ItemSpan (json-scan.ts) with what its checks found. */
export class RecordScan {
  constructor(
    readonly start: number,
    readonly end: number,
    readonly heads: Readonly<Heads>,
    /** Meets the record's shape: valid as it is, no parse needed. */
    readonly checked: boolean,
    /** DuckDB reads the text as JSON.parse would (see above). */
    readonly plain: boolean,
    /** Names of the non-null members of the objects whose rule asks for them (ObjectRule.names), in order. */
    readonly names: readonly string[],
  ) {}
}

/**
 * Visits of objects, numbered across scans so that ObjectRule.seen needs no clearing. After 2^31
 * visits numbers repeat: a stale slot can then only make an item look less valid (parsed), never more.
 */
let visits = 0;

/** Scans a list body, each item checked against the job record's shape. */
export class RecordScanner extends ListScanner<RecordScan> {
  /** Of the record being read. */
  private checked = true;
  private plain = true;
  private heads: Heads = {};
  private names: string[] = [];

  /** The item whose text starts at byte `start` of the body, read on its own (a span another scanner found). */
  itemAt(start: number): RecordScan {
    this.pos = start;
    return this.item();
  }

  protected item(): RecordScan {
    const start = this.pos;
    this.checked = true;
    this.plain = true;
    this.rareEscape = false;
    this.heads = {};
    this.names = [];
    this.value(RECORD_SHAPE, undefined);
    return new RecordScan(
      start,
      this.pos,
      this.heads,
      this.checked,
      this.plain && !this.rareEscape,
      this.names,
    );
  }

  /**
   * Checks the value at `pos` (its first byte: the walk skips white space before a value) against
   * `shape`; `head`: the record head a string value is kept as.
   */
  private value(shape: Shape, head: HeadName | undefined): void {
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
    if (this.enterObject())
      do {
        const [keyStart, keyEnd, escaped] = this.key();
        let member = escaped ? undefined : lookup(rule, buf, keyStart, keyEnd);
        let name: string | undefined;
        if (escaped) {
          // An escaped name may stand for a member's: match it decoded, and let JSON.parse judge.
          this.plain = false;
          name = this.decode(keyStart - 1, keyEnd + 1, true);
          member = rule.members.find((m) => m.name === name);
        }
        if (rule.names && buf[this.pos] !== 0x6e)
          this.names.push(member?.name ?? name ?? buf.toString('utf8', keyStart, keyEnd));
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
      } while (this.nextMember());
    if (found < rule.required) this.checked = false;
  }

  private array(element: Shape): void {
    if (this.enterArray())
      do this.value(element, undefined);
      while (this.nextElement());
  }
}

function lookup(rule: ObjectRule, buf: Buffer, start: number, end: number): Member | undefined {
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
