/**
 * Turns what went wrong on the wire into the project's typed errors, each saying what to do.
 *
 * Nothing from undici is attached as is: its errors can reference sockets and request objects, and
 * a request holds the key header. A cause is rebuilt from name, code and message only, and any
 * text that came from outside (messages, error bodies) passes through `redact` first, in case a
 * server or proxy echoes the key back.
 */
import {
  AuthenticationError,
  ConfigError,
  ProtocolError,
  RateLimitedError,
  UpstreamError,
} from '../errors.js';
import type { BodyProblem } from './listing.js';
import { parseRetryAfter, RETRY_ERROR_CODES, RETRY_STATUSES } from './retry-policy.js';

export type Redact = (text: string) => string;

/** Replaces every occurrence of the secret; a no-op for an empty secret. */
export function redactor(secret: string): Redact {
  return (text) => (secret === '' ? text : text.replaceAll(secret, '[redacted]'));
}

/** A detached copy of a thrown value: name, code and a redacted message, nothing else. */
function sanitizeCause(thrown: unknown, redact: Redact): Error {
  const source = thrown instanceof Error ? thrown : new Error(String(thrown));
  const copy = new Error(redact(source.message));
  copy.name = source.name;
  const code = (source as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code });
  // The stack would repeat the message and point into undici; the error it is attached to has one.
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

/** node's codes for a certificate that does not verify (self-signed, unknown CA, expired, wrong name). */
const TLS_TRUST_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS_CERT_ALTNAME/;

function errorCode(thrown: unknown): string | undefined {
  const code =
    typeof thrown === 'object' && thrown !== null ? (thrown as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A failure to connect, send or receive. In the 'body' phase the status line said 200 and the
 * body broke off (a closed socket, a short Content-Length): a truncated answer, which another try
 * may see whole. A body timeout stays a network failure.
 */
export function transportError(
  thrown: unknown,
  where: string,
  redact: Redact,
  phase: 'request' | 'body' = 'request',
): UpstreamError | ProtocolError {
  const code = errorCode(thrown);
  const cause = sanitizeCause(thrown, redact);
  const detail = `${code ?? cause.name}: ${cause.message}`;
  if (phase === 'body' && code !== 'UND_ERR_BODY_TIMEOUT') {
    return new ProtocolError(`the response body of ${where} was cut short (${detail})`, {
      retryable: true,
      cause,
      hint: 'the service or a proxy dropped the connection mid-answer; retried automatically',
    });
  }
  const retryable = code !== undefined && RETRY_ERROR_CODES.has(code);
  if (code !== undefined && TLS_TRUST_CODE.test(code)) {
    return new UpstreamError(`the TLS certificate of ${where} is not trusted (${detail})`, {
      retryable: false,
      cause,
      hint: 'certificate checks cannot be turned off; if the service uses a private CA, give node its certificate with NODE_EXTRA_CA_CERTS=/path/to/ca.pem',
    });
  }
  const hint =
    code === 'ECONNREFUSED' || code === 'ENOTFOUND'
      ? 'check TSYNC_BASE_URL / --base-url and that the service is reachable'
      : retryable
        ? 'the network or the service failed; retried automatically, try again later'
        : 'check TSYNC_BASE_URL / --base-url and the network';
  return new UpstreamError(`request to ${where} failed (${detail})`, { retryable, cause, hint });
}

/** The service's own explanation from an error body, when it gave one (`message`, `validation_errors`). */
function serviceMessage(body: string, redact: Redact): string | undefined {
  let parsed: { message?: unknown; validation_errors?: unknown } | null;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  // A primitive has no such members; `.flat()` spreads an array of messages.
  const parts = [parsed?.message, parsed?.validation_errors].flat();
  const texts = parts.map((part) => (typeof part === 'string' ? part : part && JSON.stringify(part)));
  const text = redact(
    texts.filter((part): part is string => typeof part === 'string' && part !== '').join('; '),
  );
  // Bounded: a message is for a terminal line, not a dump of whatever the server sent. Cut after
  // the key is blanked out, so a cut through an echoed key leaves none of it.
  return text === '' ? undefined : text.length > 500 ? `${text.slice(0, 500)}...` : text;
}

interface StatusContext {
  /** e.g. `GET /v2/live`; no query string (it can be long). */
  readonly where: string;
  readonly body: string;
  readonly retryAfter: string | string[] | undefined;
  readonly redact: Redact;
}

/** The typed error of a non-2xx answer. */
export function statusError(status: number, context: StatusContext): Error {
  const { where, body, redact } = context;
  const retryAfterMs = parseRetryAfter(context.retryAfter);
  if (status === 401 || status === 403) return new AuthenticationError({ status });
  if (status === 429) return new RateLimitedError({ retryAfterMs });
  // The lists always exist: a 404 on one is a base URL pointing elsewhere, a setting to fix (exit 2).
  if (status === 404) {
    return new ConfigError('TSYNC_BASE_URL', `${where} answered HTTP 404: the base URL is probably wrong`, {
      hint: 'set TSYNC_BASE_URL / --base-url to the service root (e.g. https://api.example.com), without /v2',
    });
  }
  if (status === 400 || status === 422) {
    const said = serviceMessage(body, redact);
    return new UpstreamError(`the service rejected ${where} (HTTP ${status})${said ? `: ${said}` : ''}`, {
      retryable: false,
      status,
      hint: 'check the filters (dates, status)',
    });
  }
  const retryable = RETRY_STATUSES.has(status);
  return new UpstreamError(`${where} answered HTTP ${status}`, {
    retryable,
    status,
    retryAfterMs,
    hint: retryable
      ? 'the service is failing or overloaded; retried automatically, try again later'
      : 'unexpected answer from the service; check TSYNC_BASE_URL / --base-url',
  });
}

/** The typed error of a 2xx answer whose body is not JSON, or not a list envelope. */
export function bodyError(problem: BodyProblem, where: string, bytes: number, redact: Redact): ProtocolError {
  if (problem.problem === 'not-json') {
    return new ProtocolError(`${where} answered with a body that is not JSON (${bytes} bytes)`, {
      retryable: true,
      cause: new Error(redact(problem.message)),
      hint: 'the service sent a broken answer; retried automatically',
    });
  }
  return new ProtocolError(`${where} answered with a body that is not a list envelope (${problem.detail})`, {
    retryable: true,
    hint: 'check TSYNC_BASE_URL / --base-url points at the listing service',
  });
}

/** A log-safe summary of an error (our messages never hold the key). */
export function describeError(error: Error): Record<string, unknown> {
  const { code, status } = error as { code?: unknown; status?: unknown };
  return { name: error.name, message: error.message, code, status };
}
