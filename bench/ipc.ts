/**
 * Request/response over a forked child's IPC channel: the bench drives its simulator child with a
 * few commands (set the latency, count requests, write the records as NDJSON) and waits for each
 * answer. Messages are JSON (`serialization: 'json'`), so only plain data crosses.
 */
import type { ChildProcess } from 'node:child_process';

interface Request {
  readonly id: number;
  readonly command: string;
  readonly args: unknown;
}

interface Response {
  readonly id: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

export type Handlers = Readonly<Record<string, (args: never) => Promise<unknown> | unknown>>;

/** The parent's side: `call` sends one command and resolves with the child's answer. */
export class ChildChannel {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly child: ChildProcess) {
    child.on('message', (message: Response) => {
      const waiter = this.waiting.get(message.id);
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(message.error ?? 'the child failed'));
    });
    child.once('exit', (code, signal) => {
      for (const waiter of this.waiting.values()) {
        waiter.reject(new Error(`the child exited (${code ?? signal}) before answering`));
      }
      this.waiting.clear();
    });
  }

  call<T>(command: string, args: unknown = null): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, command, args } satisfies Request);
    });
  }
}

/** The child's side: answers each command with its handler's result (or its error message). */
export function serveParent(handlers: Handlers): void {
  process.on('message', (message: Request) => {
    const handler = handlers[message.command];
    const answer = async (): Promise<Response> => {
      if (!handler) return { id: message.id, ok: false, error: `unknown command ${message.command}` };
      try {
        return { id: message.id, ok: true, value: await handler(message.args as never) };
      } catch (error) {
        return { id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    };
    void answer().then((response) => process.send?.(response));
  });
}
