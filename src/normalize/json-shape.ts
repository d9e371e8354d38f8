/**
 * The shape of a JSON value, as the record scanner (record-scan.ts) checks it: for each JSON type
 * the value may have, the rule it must meet. A shape is a tree built once (record-shape.ts). It may
 * be stricter than the schema it stands for (the value is then parsed and judged by the schema),
 * never looser.
 */

interface StringRule {
  /** The decoded string must not be empty. */
  readonly nonEmpty: boolean;
  /** A test of the decoded string (a format, an enum's values); undefined: any string. */
  readonly test: ((value: string) => boolean) | undefined;
}

interface NumberRule {
  /** A 32-bit integer (-2^31 .. 2^31-1); otherwise any finite number. */
  readonly int32: boolean;
}

export interface Member {
  readonly name: string;
  /** `name` as UTF-8 bytes, compared with a key's bytes in place. */
  readonly bytes: Uint8Array;
  readonly shape: Shape;
  /** Absence is an error. */
  readonly required: boolean;
  /** Position among the object's members (for the scanner's per-visit bookkeeping). */
  readonly index: number;
  /** The record head this member's string value is kept as, if any. */
  readonly head: HeadName | undefined;
}

/** Top-level string members of a record read without a parse: the walk's and a loaded record's. */
export const HEAD_NAMES = ['id', 'kind', 'status', 'created_at'] as const;
export type HeadName = (typeof HEAD_NAMES)[number];

export interface ObjectRule {
  readonly members: readonly Member[];
  /** Members by the byte length of their name: a key is compared with a few names at most. */
  readonly byLength: readonly (readonly Member[] | undefined)[];
  /**
   * The scanner's bookkeeping, one slot per member: the visit in which it was last seen (a member
   * seen twice in one visit is a repeated key). Scans run one at a time per thread.
   */
  readonly seen: Int32Array;
  /** The shape of a member not in `members` (a loose object: any; a record: its values' shape). */
  readonly rest: Shape;
  /** Members with `required`. */
  readonly required: number;
  /** The scanner keeps the names of this object's members whose value is not null (RecordScan `names`). */
  readonly names: boolean;
}

export interface Shape {
  /** Every JSON value meets it (and nothing below is looked at). */
  readonly any: boolean;
  readonly nullable: boolean;
  readonly boolean: boolean;
  readonly string: StringRule | undefined;
  readonly number: NumberRule | undefined;
  /** The shape of each element. */
  readonly array: Shape | undefined;
  readonly object: ObjectRule | undefined;
  /** Each value of this shape is a record: scanned on its own, with its span and heads kept. */
  readonly record: boolean;
}

/** No value meets it: the scanner reads the value (it must still be JSON) and vouches for nothing. */
export const NEVER: Shape = Object.freeze({
  any: false,
  nullable: false,
  boolean: false,
  string: undefined,
  number: undefined,
  array: undefined,
  object: undefined,
  record: false,
});

/** A shape from the parts given; every JSON type not named is refused. */
export function shape(parts: Partial<Shape>): Shape {
  return Object.freeze({ ...NEVER, ...parts });
}

export const ANY: Shape = shape({ any: true });

export function objectRule(
  members: readonly Omit<Member, 'index' | 'bytes'>[],
  rest: Shape = ANY,
  names = false,
): ObjectRule {
  const indexed = members.map((member, index) =>
    Object.freeze({ ...member, index, bytes: new Uint8Array(Buffer.from(member.name, 'utf8')) }),
  );
  const byLength: Member[][] = [];
  for (const member of indexed) {
    const sameLength = byLength[member.bytes.length] ?? [];
    sameLength.push(member);
    byLength[member.bytes.length] = sameLength;
  }
  return Object.freeze({
    members: Object.freeze(indexed),
    byLength,
    seen: new Int32Array(indexed.length),
    rest,
    required: indexed.filter((member) => member.required).length,
    names,
  });
}

/**
 * A shape met only by values that meet both `a` and `b` (the members of a discriminated union
 * checked at once: a record meets every option's rules for the members it has).
 */
export function both(a: Shape, b: Shape): Shape {
  if (a.any) return b;
  if (b.any) return a;
  const string = a.string && b.string ? bothStrings(a.string, b.string) : undefined;
  return shape({
    nullable: a.nullable && b.nullable,
    boolean: a.boolean && b.boolean,
    string,
    number: a.number && b.number ? { int32: a.number.int32 || b.number.int32 } : undefined,
    array: a.array && b.array ? both(a.array, b.array) : undefined,
    object: a.object && b.object ? bothObjects(a.object, b.object) : undefined,
    record: a.record || b.record,
  });
}

function bothStrings(a: StringRule, b: StringRule): StringRule {
  const tests = [a.test, b.test].filter((test) => test !== undefined);
  return {
    nonEmpty: a.nonEmpty || b.nonEmpty,
    test: tests.length === 0 ? undefined : (value) => tests.every((test) => test(value)),
  };
}

function bothObjects(a: ObjectRule, b: ObjectRule): ObjectRule {
  const names = [...new Set([...a.members, ...b.members].map((member) => member.name))];
  const members = names.map((name) => {
    const inA = a.members.find((member) => member.name === name);
    const inB = b.members.find((member) => member.name === name);
    return {
      name,
      shape: both(inA?.shape ?? a.rest, inB?.shape ?? b.rest),
      required: Boolean(inA?.required || inB?.required),
      head: inA?.head ?? inB?.head,
    };
  });
  return objectRule(members, both(a.rest, b.rest), a.names || b.names);
}

/**
 * A shape met by values that meet `a` or `b`, where the two can be told apart by JSON type; where
 * both take the same type it vouches for neither (the schema judges such values).
 */
export function either(a: Shape, b: Shape): Shape {
  if (a.any || b.any) return ANY;
  const one = <T>(x: T | undefined, y: T | undefined): T | undefined =>
    x === undefined ? y : y === undefined ? x : undefined;
  return shape({
    nullable: a.nullable || b.nullable,
    boolean: a.boolean || b.boolean,
    string: one(a.string, b.string),
    number: one(a.number, b.number),
    array: one(a.array, b.array),
    object: one(a.object, b.object),
    record: a.record || b.record,
  });
}
