/**
 * Signal handling of a long-running command: the first SIGTERM or SIGINT asks for a clean stop,
 * a second one gives up waiting. `stopWithin` bounds the clean stop (default 10 s via
 * --shutdown-timeout), so an orchestrator's grace period is never exceeded silently.
 */
import { within } from '../util/within.js';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
type ShutdownSignal = (typeof SIGNALS)[number];

/** `first` and `second` resolve at the first and second signal; `dispose` removes the handlers. */
export function listenForShutdown() {
  // Each signal resolves the next of these, in order; any after the second resolves nothing.
  const wake: ((signal: ShutdownSignal) => void)[] = [];
  const signalled = () => new Promise<ShutdownSignal>((resolve) => wake.push(resolve));
  const first = signalled();
  const second = signalled();
  const handlers = SIGNALS.map((signal) => {
    const handler = () => wake.shift()?.(signal);
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

/** Runs `stop`, unless `timeoutMs` passes or `abandon` resolves first. */
export function stopWithin(timeoutMs: number, stop: () => Promise<void>, abandon?: Promise<unknown>) {
  const stopped = stop().then(() => 'stopped' as const);
  const ended = abandon ? Promise.race([stopped, abandon.then(() => 'forced' as const)]) : stopped;
  return within(ended, timeoutMs, 'timeout' as const);
}
