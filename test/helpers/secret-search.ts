/**
 * Looks for a secret wherever transcript-sync could have put it: every column of every table of a
 * DuckDB file (cast to text, so JSON, lists and structs are searched too) and its bytes on disk,
 * every Redis key under a prefix and every value of every type there, and plain text. Each search
 * also counts what it looked at, so a test can show it searched something.
 */
import { existsSync, readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Redis } from 'ioredis';

/** The secret as it could be written: plain, URL-encoded, base64, JSON-escaped. */
export function spellings(secret: string): string[] {
  return [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      Buffer.from(secret).toString('base64'),
      JSON.stringify(secret).slice(1, -1),
    ]),
  ];
}

export function textHits(text: string, secret: string): string[] {
  return spellings(secret).filter((s) => text.includes(s));
}

export interface DbSearch {
  /** `table.column` where the secret was found. */
  readonly hits: string[];
  readonly columnsSearched: number;
}

/**
 * Every column of every base table, compared as text with bound parameters: one scan of each table
 * counts the rows of each column that hold each spelling. A column is named once for each spelling
 * found in it.
 */
export async function searchDatabase(dbPath: string, secret: string): Promise<DbSearch> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const columns = (
      await conn.runAndReadAll(
        "SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name) WHERE t.table_type = 'BASE TABLE' AND c.table_schema = 'main' ORDER BY c.table_name, c.ordinal_position",
      )
    ).getRowObjectsJS();
    const spelled = spellings(secret);
    const params = Object.fromEntries(spelled.map((spelling, i) => [`s${i}`, spelling]));
    const tables = new Map<string, string[]>();
    for (const column of columns) {
      const table = String(column['table_name']);
      tables.set(table, [...(tables.get(table) ?? []), String(column['column_name'])]);
    }
    const hits: string[] = [];
    for (const [table, names] of tables) {
      const counts = names.flatMap((name, c) =>
        spelled.map(
          (_, i) =>
            `count(*) FILTER (WHERE contains(CAST(${quoteIdent(name)} AS VARCHAR), $s${i})) AS "c${c}s${i}"`,
        ),
      );
      const reader = await conn.runAndReadAll(
        `SELECT ${counts.join(', ')} FROM ${quoteIdent(table)}`,
        params,
      );
      const [row] = reader.getRowObjectsJS();
      names.forEach((name, c) => {
        spelled.forEach((_, i) => {
          if (Number(row?.[`c${c}s${i}`]) > 0) hits.push(`${table}.${name}`);
        });
      });
    }
    for (const file of [dbPath, `${dbPath}.wal`]) {
      if (existsSync(file) && textHits(readFileSync(file).toString('latin1'), secret).length > 0)
        hits.push(`bytes of ${file}`);
    }
    return { hits, columnsSearched: columns.length };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export interface RedisSearch {
  readonly hits: string[];
  readonly keysSearched: number;
  /** Every key and value seen, for positive checks (e.g. that job data was there to search). */
  readonly everything: string;
}

/** Every key under `prefix` and its whole value, whatever its type. */
export async function searchRedis(redis: Redis, prefix: string, secret: string): Promise<RedisSearch> {
  const hits: string[] = [];
  const seen: string[] = [];
  let keysSearched = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      keysSearched += 1;
      const value = await valueText(redis, key);
      const entry = `${key} => ${value}`;
      seen.push(entry);
      if (textHits(entry, secret).length > 0) hits.push(key);
    }
  } while (cursor !== '0');
  return { hits, keysSearched, everything: seen.join('\n') };
}

async function valueText(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return String(await redis.get(key));
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, 0, -1, 'WITHSCORES'));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return `(${type})`;
  }
}
