/**
 * Structured logs (pino) on stderr, so stdout stays free for results. On a terminal each entry is
 * one human-readable line; anywhere else one JSON object per line. Every field, at any depth, is
 * snake_case, and a number with a unit names it as its last word (`delay_ms`, `bytes`); an error's
 * own fields are renamed to match. A child logger never rebinds a key its parent has, so no JSON
 * line carries a key twice. Paths that could hold the API key are redacted as a second line of
 * defence; the first is that no code logs it.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { snakeKeys } from './util/snake-case.js';

export type { Logger };

/** Where log lines go: a stream, or anything with `write` (the progress view's terminal lines). */
export interface TextSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** `stream` default: stderr, which (given or not) is written to fd 2 synchronously: nothing lost at exit. */
export function createLogger(
  level = 'info',
  bindings: Record<string, unknown> = {},
  output: { readonly stream?: TextSink } = {},
): Logger {
  const stream = output.stream ?? process.stderr;
  const options = {
    level,
    base: { pid: process.pid, ...bindings },
    redact: {
      paths: ['apiKey', '*.apiKey', 'headers["x-service-key"]', '*.headers["x-service-key"]'],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: (error: unknown) => snakeKeys({ ...pino.stdSerializers.err(error as Error) }) },
  };
  if (stream.isTTY === true)
    return pino(options, { write: (line: string) => stream.write(`${prettyLine(line)}\n`) });
  if (stream !== process.stderr) return pino(options, stream as DestinationStream);
  return pino(options, pino.destination({ fd: 2, sync: true }));
}

/** A line at the level it is logged at off a terminal. */
export type OutcomeLevel = 'info' | 'warn' | 'error';
/** Writes one line of a command's outcome; see `outcomeWriter`. */
export type OutcomeWriter = (level: OutcomeLevel, text: string, fields?: Record<string, unknown>) => void;

/**
 * Lines a command writes for its reader whatever the log level (a run's summary, its closing
 * error): on a terminal the text as it is; anywhere else a log line like the others, `msg` the
 * text and `fields` beside it, so that stderr off a terminal is JSON lines only.
 */
export function outcomeWriter(stream: TextSink): OutcomeWriter {
  if (stream.isTTY === true) return (_level, text) => void stream.write(`${text}\n`);
  const logger = createLogger('info', {}, { stream });
  return (level, text, fields = {}) => logger[level](fields, text);
}

/** A logger that drops everything, for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });

const COLOURS: Readonly<Record<number, string>> = { 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[31m' };
/** Fields every line has, or that the line shows in its own place. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One JSON log line as a terminal line; anything unparsable passes through as it is. */
function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const level = Number(entry['level']);
  const name = (pino.levels.labels[level]?.toUpperCase() ?? String(level)).padEnd(5);
  const time = typeof entry['time'] === 'string' ? entry['time'].slice(11, 23) : '';
  const colour = COLOURS[level];
  const shownLevel = colour ? `${colour}${name}\x1b[0m` : name;
  const fields = Object.entries(entry)
    .filter(([key]) => !OMITTED.has(key))
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  return [time, shownLevel, String(entry['msg'] ?? ''), ...fields].filter(Boolean).join(' ');
}

function fieldText(value: unknown): string {
  if (value !== null && typeof value === 'object' && 'message' in value) {
    return JSON.stringify((value as { message: unknown }).message);
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[\s"=]/.test(text) ? JSON.stringify(text) : text;
}
