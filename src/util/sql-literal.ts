/**
 * The one place that puts a value into SQL text. DuckDB cannot bind the target of COPY ... TO as a
 * parameter (the path is read when the statement is planned, before values are bound), so the
 * export's output path is written as a string literal: validated, made absolute, and quoted by
 * doubling single quotes, the only escape an SQL string literal has. Everything else is bound.
 */
import { isAbsolute } from 'node:path';
import { ConfigError } from '../errors.js';

/** A quoted SQL string literal of an absolute file-system path. `setting` names the flag in errors. */
export function sqlPathLiteral(path: string, setting: string): string {
  if (!isAbsolute(path))
    throw new ConfigError(setting, `"${path}" must be resolved to an absolute path first`);
  // Control characters (NUL, newlines) have no business in a path and would confuse any reader of the SQL.
  if ([...path].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    throw new ConfigError(setting, 'the path contains control characters');
  }
  return `'${path.replaceAll("'", "''")}'`;
}

/**
 * A quoted SQL identifier (a database name from DuckDB itself, e.g. for COPY FROM DATABASE, which
 * takes names, not values; a query result's column name): double quotes, an inner one doubled.
 */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
