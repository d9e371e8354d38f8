/**
 * Signal handling of a long-running command: the first SIGTERM or SIGINT asks for a clean stop,
 * a second one gives up waiting. `stopWithin` bounds the clean stop (default 10 s via
 * --shutdown-timeout), so an orchestrator's grace period is never exceeded silently.
 */
import { within } from '../util/within.js';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
export type ShutdownSignal = (typeof SIGNALS)[number];

export interface ShutdownSignals {
  /** Resolves at the first signal. */
  readonly first: Promise<ShutdownSignal>;
  /** Resolves at the second signal. */
  readonly second: Promise<ShutdownSignal>;
  /** Removes the handlers. */
  dispose(): void;
}

export function listenForShutdown(): ShutdownSignals {
  let count = 0;
  let resolveFirst: (signal: ShutdownSignal) => void = () => {};
  let resolveSecond: (signal: ShutdownSignal) => void = () => {};
  const first = new Promise<ShutdownSignal>((resolve) => {
    resolveFirst = resolve;
  });
  const second = new Promise<ShutdownSignal>((resolve) => {
    resolveSecond = resolve;
  });
  const handlers = SIGNALS.map((signal) => {
    const handler = () => {
      count += 1;
      if (count === 1) resolveFirst(signal);
      else resolveSecond(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    first,
    second,
    dispose() {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}

export type StopResult = 'stopped' | 'timeout' | 'forced';

/** Runs `stop`, unless `timeoutMs` passes or `abandon` resolves first. */
export function stopWithin(
  timeoutMs: number,
  stop: () => Promise<void>,
  abandon?: Promise<unknown>,
): Promise<StopResult> {
  const stopped = stop().then(() => 'stopped' as const);
  const ended = abandon ? Promise.race([stopped, abandon.then(() => 'forced' as const)]) : stopped;
  return within(ended, timeoutMs, 'timeout' as const);
}
