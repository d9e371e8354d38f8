/**
 * A file's connections as a Database holds them: its own (statements and transactions), a
 * writer's staging connections, and connections lent for a while (withConnection: the read
 * server's). A writer's can be opened again (reopen): the instance given back, a new one opened
 * with the same settings, the reopen hooks run on it before anything else.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/** The connections of an open file, as its opener (open-file.ts) makes them. */
export interface ConnectionParts {
  readonly connection: DuckDBConnection;
  /** A new connection to the same file: its own transactions, so its own snapshot. */
  readonly connect: () => Promise<DuckDBConnection>;
  /** A writer's staging connections (the loader's parsing, outside its transactions): two, used in turn. */
  readonly staging?: readonly DuckDBConnection[];
  /** Run once the connections closed: gives the file back. */
  readonly release: () => void;
  /** A writer's: gives the file back and opens it again with the same settings, no migration. */
  readonly reopen?: () => Promise<this>;
  /** Whether these parts are the instance's only handle in the process (reopen needs that). */
  readonly sole?: () => boolean;
}

/** Run on a new connection after each reopen, before any other statement: instance settings. */
export type ReopenHook = (connection: DuckDBConnection) => Promise<void>;

export class Connections<P extends ConnectionParts> {
  private current: P;
  /** Connections withConnection() has lent and not yet had back. */
  private lent = 0;
  /** Set while reopen() runs: withConnection() and the Database's statements wait for it. */
  private reopening: Promise<void> | undefined;
  private readonly hooks = new Set<ReopenHook>();

  constructor(parts: P) {
    this.current = parts;
  }

  get parts(): P {
    return this.current;
  }

  /** Settles once no reopen is in progress. */
  async settled(): Promise<void> {
    await this.reopening;
  }

  /** `fn` on a new connection of the instance, closed when `fn` settles; none reopens meanwhile. */
  async withConnection<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    await this.reopening;
    this.lent += 1;
    try {
      const connection = await this.current.connect();
      try {
        return await fn(connection);
      } finally {
        connection.closeSync();
      }
    } finally {
      this.lent -= 1;
    }
  }

  onReopen(hook: ReopenHook): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /**
   * Opens the file again when these are a writer's, lend nothing and are the instance's only
   * handle; `drop` first lets go of what the owner holds on the main connection.
   * False when not. A failure after the old instance went is thrown, nothing left open.
   */
  async reopen(drop: () => void): Promise<boolean> {
    const reopen = this.current.reopen;
    const busy = this.lent > 0 || this.reopening !== undefined;
    if (!reopen || busy || this.current.sole?.() !== true) return false;
    let done = () => {};
    this.reopening = new Promise<void>((resolve) => {
      done = resolve;
    });
    let opened = false;
    try {
      drop();
      this.close();
      this.current = await reopen();
      opened = true;
      for (const hook of this.hooks) {
        const connection = await this.current.connect();
        try {
          await hook(connection);
        } finally {
          connection.closeSync();
        }
      }
      return true;
    } catch (error) {
      if (opened) this.close();
      throw error;
    } finally {
      this.reopening = undefined;
      done();
    }
  }

  /** The staging and main connections closed and the instance given back. */
  close(): void {
    for (const staging of this.current.staging ?? []) staging.closeSync();
    this.current.connection.closeSync();
    this.current.release();
  }
}
