/**
 * The job record's shape for the record scanner (record-scan.ts), derived from its zod
 * schema so that the two cannot drift: a record the scanner vouches for is one the schema accepts.
 * What this does not know how to express (a check, a format, a union of two shapes of one JSON
 * type) becomes a shape that vouches for nothing: such a record is parsed and the schema judges it.
 */
import type { z } from 'zod';
import { ANY, both, either, HEAD_NAMES, NEVER, objectRule, type Shape, shape } from './json-shape.js';
import { jobRecordSchema } from './records/job-record.js';
import { wordSchema, wordsSchema } from './records/shapes.js';

type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type Node = z.core.$ZodType;

/** `result`, whose members' names the scan keeps: the loader maps each feature result by name. */
const RESULT = 'result';

export const RECORD_SHAPE: Shape = recordShape();

function recordShape(): Shape {
  const compiled = compile(jobRecordSchema);
  return shape({ ...compiled, record: true, object: compiled.object && withHeads(compiled.object) });
}

/** The record's top-level members that the walk reads without a parse: HEAD_NAMES, each a member of the schema. */
function withHeads(rule: NonNullable<Shape['object']>): NonNullable<Shape['object']> {
  const members = rule.members.map((member) => ({
    ...member,
    shape: member.name === RESULT ? withNames(member.shape) : member.shape,
    head: HEAD_NAMES.find((head) => head === member.name),
  }));
  return objectRule(members, rule.rest);
}

function withNames(result: Shape): Shape {
  const rule = result.object;
  if (rule === undefined) return result;
  return shape({ ...result, object: objectRule(rule.members, rule.rest, true) });
}

function defOf(node: Node): Def {
  return node._zod.def as Def;
}

/** Only checks this compiler reads (min_length 1); any other makes the node unvouchable. */
function checksOf(def: Def): readonly { check: string; minimum?: number }[] {
  const checks = (def['checks'] as readonly Node[] | undefined) ?? [];
  return checks.map((check) => check._zod.def as unknown as { check: string; minimum?: number });
}

function compile(node: Node): Shape {
  if (node === wordsSchema) {
    // The words' fast path (a custom check) accepts exactly an optional array of `wordSchema`.
    return shape({ nullable: true, array: compile(wordSchema) });
  }
  const def = defOf(node);
  switch (def.type) {
    case 'optional':
      return compile(def['innerType'] as Node);
    case 'nullable':
      return shape({ ...compile(def['innerType'] as Node), nullable: true });
    case 'unknown':
    case 'any':
      return ANY;
    case 'string':
      return stringShape(node, def);
    case 'number':
      return numberShape(def);
    case 'boolean':
      return checksOf(def).length === 0 ? shape({ boolean: true }) : NEVER;
    case 'enum':
      return valuesShape(Object.values(def['entries'] as Record<string, unknown>));
    case 'literal':
      return valuesShape(def['values'] as readonly unknown[]);
    case 'array':
      return checksOf(def).length === 0 ? shape({ array: compile(def['element'] as Node) }) : NEVER;
    case 'object':
      return objectShape(def);
    case 'record':
      return recordOf(def);
    case 'union':
      return unionShape(def);
    default:
      return NEVER;
  }
}

function stringShape(node: Node, def: Def): Shape {
  let nonEmpty = false;
  for (const check of checksOf(def)) {
    if (check.check === 'min_length' && check.minimum === 1) nonEmpty = true;
    else return NEVER;
  }
  const format = def['format'] as string | undefined;
  if (format === undefined) return shape({ string: { nonEmpty, test: undefined } });
  if (format !== 'datetime') return NEVER;
  // zod's own pattern for this format (its offset and precision options included).
  const pattern = node._zod.pattern;
  if (!(pattern instanceof RegExp)) return NEVER;
  return shape({ string: { nonEmpty, test: (value) => pattern.test(value) } });
}

function numberShape(def: Def): Shape {
  if (checksOf(def).length > 0) return NEVER;
  const format = def['format'] as string | undefined;
  if (format === undefined) return shape({ number: { int32: false } });
  return format === 'int32' ? shape({ number: { int32: true } }) : NEVER;
}

function valuesShape(values: readonly unknown[]): Shape {
  if (!values.every((value) => typeof value === 'string')) return NEVER;
  const allowed = new Set(values as readonly string[]);
  return shape({ string: { nonEmpty: false, test: (value) => allowed.has(value) } });
}

function objectShape(def: Def): Shape {
  const entries = Object.entries(def['shape'] as Record<string, Node>);
  const catchall = def['catchall'] as Node | undefined;
  // A plain z.object() strips unknown members, a loose one keeps them: either way they pass.
  const rest = catchall === undefined ? ANY : compile(catchall);
  const members = entries.map(([name, member]) => ({
    name,
    shape: compile(member),
    required: member !== wordsSchema && defOf(member).type !== 'optional',
    head: undefined,
  }));
  return shape({ object: objectRule(members, rest) });
}

function recordOf(def: Def): Shape {
  const key = defOf(def['keyType'] as Node);
  if (key.type !== 'string' || checksOf(key).length > 0 || key['format'] !== undefined) return NEVER;
  return shape({ object: objectRule([], compile(def['valueType'] as Node)) });
}

function unionShape(def: Def): Shape {
  const options = (def['options'] as readonly Node[]).map(compile);
  const discriminator = def['discriminator'] as string | undefined;
  if (discriminator === undefined) return options.reduce(either);
  // A discriminated union: every option's rules at once, the discriminator one of their values.
  const merged = options.reduce(both);
  const values = (def['options'] as readonly Node[]).flatMap((option) => {
    const member = (defOf(option)['shape'] as Record<string, Node>)[discriminator];
    return member ? ((defOf(member)['values'] as readonly unknown[] | undefined) ?? []) : [];
  });
  const object = merged.object;
  if (object === undefined) return NEVER;
  const members = object.members.map((member) =>
    member.name === discriminator ? { ...member, shape: valuesShape(values) } : member,
  );
  return shape({ ...merged, object: objectRule(members, object.rest) });
}
