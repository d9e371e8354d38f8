/**
 * The one place that puts a value into SQL text: DuckDB plans COPY ... TO's path before binding values,
 * so it is written as a literal, checked absolute and quoted by doubling single quotes (the only escape
 * an SQL string has). Everything else is bound.
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

/** A quoted SQL identifier (a name DuckDB gave, for COPY FROM DATABASE or a column): inner quotes doubled. */
export function sqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
