/**
 * The one JSON writer behind every JSON the CLI prints. Unlike JSON.stringify it never sends a number
 * through a double it does not fit: a bigint as its digits, an ExactNumber (DuckDB's text of a DECIMAL)
 * as that literal, a JsonText (a JSON column) as it is. A number not finite is the string "NaN",
 * "Infinity" or "-Infinity" (never a silent null); Date is ISO 8601 UTC; the rest as JSON.stringify.
 */

/** A JSON number literal: optional minus, digits, optional fraction and exponent. */
const NUMBER_LITERAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** JSON text written as it is: checked once, when it is made. */
abstract class Verbatim {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** A number as the text of its exact decimal value, written into JSON as that literal. */
export class ExactNumber extends Verbatim {
  constructor(text: string) {
    if (!NUMBER_LITERAL.test(text)) throw new TypeError(`not a JSON number literal: ${text}`);
    super(text);
  }
}

/** JSON text made elsewhere (DuckDB's JSON type), embedded as it is. */
export class JsonText extends Verbatim {
  constructor(text: string) {
    JSON.parse(text);
    super(text);
  }
}

/** `value` as JSON text (no trailing newline); `indent`: spaces per level, 0 (the default) one line. */
export function writeJson(value: unknown, options: { readonly indent?: number } = {}): string {
  const unit = ' '.repeat(options.indent ?? 0);
  return write(value, unit, '') ?? 'null';
}

/** undefined for what JSON leaves out (undefined, functions, symbols). */
function write(value: unknown, unit: string, at: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : `"${String(value)}"`;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? 'null' : writeObject(value, unit, at);
    default:
      return undefined;
  }
}

function writeObject(value: object, unit: string, at: string): string | undefined {
  if (value instanceof Verbatim) return value.text;
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? 'null' : JSON.stringify(value.toISOString());
  const inner = at + unit;
  const open = unit === '' ? '' : `\n${inner}`;
  const close = unit === '' ? '' : `\n${at}`;
  const separator = unit === '' ? ',' : `,\n${inner}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item: unknown) => write(item, unit, inner) ?? 'null');
    return `[${open}${items.join(separator)}${close}]`;
  }
  const toJson = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJson === 'function') return write(toJson.call(value), unit, at);
  const colon = unit === '' ? ':' : ': ';
  const members = Object.entries(value).flatMap(([key, member]) => {
    const text = write(member, unit, inner);
    return text === undefined ? [] : [`${JSON.stringify(key)}${colon}${text}`];
  });
  if (members.length === 0) return '{}';
  return `{${open}${members.join(separator)}${close}}`;
}
