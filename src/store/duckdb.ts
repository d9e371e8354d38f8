/**
 * @duckdb/node-api, loaded at its first use, never by an import: a command that opens no file loads no
 * DuckDB, and its allocator reads its settings (src/cli/main.ts) as it loads. With `require`, so that
 * the CommonJS package's re-exports are not scanned for export names.
 */
import { createRequire } from 'node:module';
import type * as Api from '@duckdb/node-api';

export type DuckDBApi = typeof Api;

let api: DuckDBApi | undefined;

/** The package's values (classes, enums, value constructors); the first call loads it. */
export function duckdb(): DuckDBApi {
  api ??= createRequire(import.meta.url)('@duckdb/node-api') as DuckDBApi;
  return api;
}
