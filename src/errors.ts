/**
 * The few error classes of transcript-sync. Each carries what happened, how to fix it (`hint`),
 * whether trying again can help (`retryable`), and the process exit code it maps to
 * (2: usage or configuration, 1: a runtime failure). Messages never contain the API key: the key
 * only ever travels in a request header, and no error copies headers.
 */
export type ExitCode = 1 | 2;

export interface TsyncErrorOptions {
  readonly hint?: string;
  readonly cause?: unknown;
}

export abstract class TsyncError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;
  abstract readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(message: string, options: TsyncErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }

  /** One line for a terminal: what happened, then how to fix it. */
  toLine(): string {
    return this.hint ? `${this.message}; ${this.hint}` : this.message;
  }
}

/** A failure of a fixed `code`, retryability and exit code (default 1: a runtime failure). */
function fixedError<C extends string>(code: C, retryable: boolean, exitCode: ExitCode = 1) {
  return class extends TsyncError {
    readonly code = code;
    readonly retryable = retryable;
    readonly exitCode = exitCode;
  };
}

/** A runtime failure (exit 1) of a fixed `code`, retryable as the thrower judges it. */
function judgedError<C extends string>(code: C) {
  return class extends TsyncError {
    readonly code = code;
    readonly exitCode = 1;
    readonly retryable: boolean;
    constructor(message: string, options: TsyncErrorOptions & { readonly retryable: boolean }) {
      super(message, options);
      this.retryable = options.retryable;
    }
  };
}

/** A bad flag, environment variable or argument: its message reads `setting: message`. */
export class ConfigError extends fixedError('CONFIG', false, 2) {
  constructor(
    readonly setting: string,
    message: string,
    options: TsyncErrorOptions = {},
  ) {
    super(`${setting}: ${message}`, options);
  }
}

/** The service refused the key (401/403). No retry can fix it. */
export class AuthenticationError extends fixedError('AUTH', false, 2) {
  readonly status: number;
  constructor(options: TsyncErrorOptions & { readonly status: number }) {
    super(`the service refused the API key (HTTP ${options.status})`, {
      hint: 'check TSYNC_API_KEY (environment or env file); it is sent as the x-service-key header',
      ...options,
    });
    this.status = options.status;
  }
}

/** The service answered 429. Retryable after `retryAfterMs` when the service said so. */
export class RateLimitedError extends fixedError('RATE_LIMITED', true) {
  /** `Retry-After`, ms; undefined when the service did not say. */
  readonly retryAfterMs: number | undefined;
  constructor(options: TsyncErrorOptions & { readonly retryAfterMs: number | undefined }) {
    super('the service is rate limiting requests (HTTP 429)', {
      hint: 'lower --rate-limit (TSYNC_RATE_LIMIT) or try again later',
      ...options,
    });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Any other non-2xx answer, or a network failure (`status` undefined); `retryAfterMs`: `Retry-After`. */
export class UpstreamError extends judgedError('UPSTREAM') {
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    options: TsyncErrorOptions & { retryable: boolean; status?: number; retryAfterMs?: number },
  ) {
    super(message, options);
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The service broke the protocol: an unparsable or truncated body, an envelope of the wrong shape,
 * a `next` link that does not advance. Retryable when a second try may see a whole answer.
 */
export class ProtocolError extends judgedError('PROTOCOL') {}

/**
 * A response body grew past `maxBytes`; `bytes` were received (or declared) when the client stopped
 * reading. The engine asks again with a smaller `limit`; not retried as is (the same body again).
 */
export class ResponseTooLargeError extends fixedError('TOO_LARGE', false) {
  readonly bytes: number;
  readonly maxBytes: number;
  constructor(message: string, options: TsyncErrorOptions & { bytes: number; maxBytes: number }) {
    super(message, options);
    this.bytes = options.bytes;
    this.maxBytes = options.maxBytes;
  }
}

/**
 * The listing contradicted itself and kept doing so after being asked again (an empty page with a
 * `next` link...): the walk stops rather than take a glitch for the end of the list. Retryable.
 */
export class ListingAnomalyError extends fixedError('LISTING_ANOMALY', true) {}

/**
 * A `--full` run would mark more jobs deleted than `--max-delete-share` allows. Nothing is marked;
 * the message says how many and how to proceed. Not retryable: the next run would refuse too.
 */
export class DeletionGuardError extends fixedError('DELETION_GUARD', false) {}

/** The DuckDB file (or folder) at `path` cannot be opened or written, or another process holds it (busy). */
export class DatabaseError extends TsyncError {
  readonly code: 'DB_BUSY' | 'DB';
  readonly exitCode = 1;
  readonly path: string;
  readonly retryable: boolean;
  readonly busy: boolean;
  constructor(
    message: string,
    options: TsyncErrorOptions & { path: string; retryable?: boolean; busy?: boolean },
  ) {
    super(message, options);
    this.path = options.path;
    this.retryable = options.retryable ?? false;
    this.busy = options.busy ?? false;
    this.code = this.busy ? 'DB_BUSY' : 'DB';
  }
}

/**
 * The object store of `--publish s3://` could not be reached or refused the publisher. The message
 * names the bucket and the store's own fault, never a credential. Retryable when the next run may
 * succeed as it is (an unreachable endpoint), not after a fix (a denied access).
 */
export class StorageError extends judgedError('STORAGE') {}

/** Redis is unreachable or refused a command. */
export class RedisError extends fixedError('REDIS', true) {}

/** No worker listens on the queue a caller would wait on, so a job queued there would not run. */
export class NoWorkerError extends fixedError('NO_WORKER', true) {}

/** The run was stopped on purpose (SIGINT/SIGTERM) after committing what it had. */
export class InterruptedError extends fixedError('INTERRUPTED', true) {}

/** Coerces anything thrown into an Error, for catch sites. */
export function toError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(typeof thrown === 'string' ? thrown : JSON.stringify(thrown));
}

export function isRetryable(error: unknown): boolean {
  return error instanceof TsyncError && error.retryable;
}

/** DuckDB's error when a statement needs more than its `memory_limit` and cannot spill it. */
export function isOutOfMemory(error: unknown): boolean {
  return /Out of Memory Error|failed to pin block/i.test(
    error instanceof Error ? error.message : String(error),
  );
}

/** `attempt()`, or `again()` once DuckDB ran out of memory (the commands that read every `raw`). */
export async function onOutOfMemory<T>(attempt: () => Promise<T>, again: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!isOutOfMemory(error)) throw error;
    return again();
  }
}
