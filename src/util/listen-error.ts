/**
 * A server that cannot listen where it was told (a busy or privileged port, a host not of this
 * machine) as a one-line ConfigError (exit 2) naming the flag to change; other errors as they are.
 */
import { ConfigError, toError } from '../errors.js';

export interface ListenPlace {
  readonly host: string;
  readonly port: number;
  /** The flags that set them, e.g. `--metrics-port` and `--metrics-host`. */
  readonly portFlag: string;
  readonly hostFlag: string;
  /** Who probably holds a busy port, e.g. `another worker?`. */
  readonly holder: string;
}

export function listenError(error: unknown, at: ListenPlace): Error {
  const { host, port, portFlag, hostFlag } = at;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ConfigError(
      portFlag,
      `${host}:${port} is already in use (${at.holder}); pick a free port with ${portFlag}, or 0 for any free one`,
    );
  }
  if (code === 'EACCES') {
    return new ConfigError(portFlag, `not allowed to listen on ${host}:${port}; use a port above 1023`);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ConfigError(hostFlag, `${host} is not an address of this machine; use 127.0.0.1 or 0.0.0.0`);
  }
  return toError(error);
}
