/**
 * undici's Pool, loaded without the rest of undici. The package's index loads every part of it
 * (fetch, WebSocket, caches, cookies, mocks, proxies) at each process start, and the client needs
 * only a Pool and its `request`; the index adds `request` and the other calls of lib/api to every
 * dispatcher, and so does this module, with the same functions (loading the index as well changes
 * nothing). The paths are those of the undici version package.json pins; the types are the
 * package's own.
 */
import { createRequire } from 'node:module';
import type { Pool as UndiciPool } from 'undici';

const load = createRequire(import.meta.url);

const Dispatcher = load('undici/lib/dispatcher/dispatcher.js') as { prototype: object };
Object.assign(Dispatcher.prototype, load('undici/lib/api/index.js') as object);

export const Pool = load('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;
