/**
 * No SQL is assembled from record contents or user input except through bound parameters:
 * record fields, a custom_metadata filter, report and query arguments and an export path full of
 * quotes and semicolons do nothing harmful (every table intact, values stored verbatim), and no
 * source file builds SQL text from interpolated values except the one quoted export path.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListingClient } from '../../../src/extract/index.js';
import {
  generateDataset,
  type JobRecord,
  type Simulator,
  startSimulator,
} from '../../../src/simulator/index.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import { projectRoot } from '../../../src/util/paths.js';
import { runMain } from '../../helpers/cli.js';
import { fingerprint, TABLES } from '../../helpers/db-fingerprint.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { actualFacts, expectedFacts } from '../../helpers/mirror.js';
import { tempDir } from '../../helpers/tmp.js';

const DROP = "'; DROP TABLE jobs; --";
const HOSTILE = [
  DROP,
  '"); DELETE FROM words; --',
  "O'Brien; \\'; --",
  '$1 $id ?; SELECT 1',
  'x\u0000y',
  '🦆 \u202e',
] as const;

const sims: Simulator[] = [];
const clients: ListingClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const sim of sims.splice(0)) await sim.close();
});

type Json = Record<string, unknown>;

/** Generated records with hostile text in ids, metadata, file names, transcripts, words and request params. */
function hostileRecords(): JobRecord[] {
  const records = generateDataset({
    seed: 71,
    preRecorded: 8,
    live: 6,
    utterancesPerJob: 2,
    wordsPerUtterance: 3,
  });
  const done = records.filter((r) => r['status'] === 'done' && utterancesOf(r).length > 0);
  done.forEach((record, i) => {
    const text = HOSTILE[i % HOSTILE.length]!;
    record['id'] = `${text}#${i}`;
    record['request_id'] = `G-${text}`;
    record['custom_metadata'] = { [text]: text, team: `team ${text}` };
    const file = record['file'] as Json | null;
    if (file) file['filename'] = `${text}.mp3`;
    const first = utterancesOf(record)[0]!;
    first['text'] = text;
    const word = (first['words'] as Json[])[0];
    if (word) word['word'] = text;
  });
  return records;
}

function utterancesOf(record: JobRecord): Json[] {
  const transcription = ((record['result'] as Json | null)?.['transcription'] ?? {}) as Json;
  return Array.isArray(transcription['utterances']) ? (transcription['utterances'] as Json[]) : [];
}

async function storedRow(db: string, id: string): Promise<Json | undefined> {
  const database = await openReadOnly(db);
  try {
    const rows = await database.all(
      `SELECT j.request_id, j.filename, j.custom_metadata, u.text, w.word FROM jobs j
       JOIN utterances u ON u.job_id = j.id AND u.source = 'transcription' AND u.utterance_idx = 0
       JOIN words w ON w.job_id = j.id AND w.source = 'transcription' AND w.utterance_idx = 0 AND w.word_idx = 0
       WHERE j.id = $id`,
      { id },
    );
    return rows[0];
  } finally {
    await database.close();
  }
}

describe('hostile text in records and arguments', () => {
  it('stores record fields full of quotes and semicolons verbatim, every table intact', async () => {
    const records = hostileRecords();
    const sim = await startSimulator({ records });
    sims.push(sim);
    const db = await migratedDb('hostile.duckdb');
    const result = await runMain(['sync', '--db', db], {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
    });
    expect(result.code, result.stderr).toBe(0);
    const facts = await actualFacts(db);
    const expected = expectedFacts(sim.data.all());
    expect(facts.jobs).toEqual(expected.jobs);
    expect([facts.utterances, facts.words]).toEqual([expected.utterances, expected.words]);
    let checked = 0;
    for (const record of records.filter((r) => String(r['id']).includes('#'))) {
      const text = String(record['request_id']).slice(2);
      const row = await storedRow(db, String(record['id']));
      expect(row, String(record['id'])).toEqual({
        request_id: `G-${text}`,
        filename: (record['file'] as Json | null) ? `${text}.mp3` : null,
        custom_metadata: JSON.stringify({ [text]: text, team: `team ${text}` }),
        text,
        word: text,
      });
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(HOSTILE.length);
  });

  it('refuses hostile report and query arguments as usage errors and exports to a path with quotes, tables intact', async () => {
    const sim = await startSimulator({
      preRecorded: 6,
      live: 4,
      seed: 73,
      utterancesPerJob: 2,
      wordsPerUtterance: 2,
    });
    sims.push(sim);
    const dir = tempDir();
    const db = join(dir, 'args.duckdb');
    expect(
      (await runMain(['sync', '--db', db], { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey })).code,
    ).toBe(0);
    const before = await fingerprint(db);
    const refused = [
      ['report', 'billing', '--from', `2024-01-01${DROP}`],
      ['report', 'status', '--kind', `live${DROP}`],
      ['report', 'billing', '--to', `2024-12${DROP}`],
      ['query', `SELECT 1${DROP}`.replace('--', '')],
      ['query', 'SELECT 1; DROP TABLE jobs'],
      ['query', "COPY jobs TO '/tmp/stolen.csv'"],
    ];
    for (const args of refused) {
      const result = await runMain([...args, '--db', db]);
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(2);
    }
    const out = join(dir, `out${DROP}`);
    const exported = await runMain(['export', '--db', db, '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['jobs', 'module_results', 'utterances', 'words']);
    expect(await fingerprint(db)).toEqual(before);
    expect(Object.keys(before)).toEqual([...TABLES]);
  });
});

describe('the source builds no SQL from values', () => {
  it('interpolates nothing into SQL text except the quoted export path', () => {
    const allowed = [
      // DuckDB cannot bind COPY's target; sqlPathLiteral checks and quotes it (src/util/sql-literal.ts).
      // The source is a dataset's statement text, or a Parquet file read back (src/store/statements/datasets.ts).
      /^`COPY \(\$\{source\}\) TO \$\{sqlPathLiteral\(target\.path, target\.setting\)\} \(FORMAT parquet\$\{partitions\}\)`$/,
      // Parquet files read back by path, through the same helper (read client, publish).
      /read_parquet\(\$\{sqlPathLiteral\(/,
      // Statement texts of sql/queries wrapped in a filter or an aggregate (publish's datasets), no values.
      /^`SELECT (\* FROM|t\.kind, t\.month, count\(\*\) AS n, CAST\(bit_xor\(hash\(t\)\) AS VARCHAR\) AS hash FROM) \(\$\{(rows|queryText\(query\))\}\) AS t/,
      // One partition of such a statement's rows, without the partition columns (a wide dataset's file).
      /^`SELECT \* EXCLUDE \(kind, month\) FROM \(\$\{source\}\) AS t WHERE t\.kind = \$kind AND t\.month = \$month`$/,
      // The partitions of such a statement's rows, listed before they are copied 64 at a time.
      /^`SELECT DISTINCT t\.kind \|\| '\|' \|\| t\.month AS key FROM \(\$\{rows\}\) AS t ORDER BY key`$/,
      // Nor ATTACH's path, nor COPY FROM DATABASE's names: quoted by sql-literal.ts (src/store/file/rewrite-file.ts).
      /^`ATTACH \$\{sqlPathLiteral\(target, '--db'\)\} AS tsync_compacted \(STORAGE_VERSION '\$\{STORAGE_FORMAT\}'\)`$/,
      /^`COPY FROM DATABASE \$\{sqlIdentifier\(String\(row\?\.name\)\)\} TO tsync_compacted \(SCHEMA\)`$/,
      // A query's result copied into a private in-memory DuckDB (src/analytics/format/result-parquet.ts): its
      // column names quoted by sqlIdentifier with DuckDB's own type text, the file by sqlPathLiteral.
      /^`CREATE TABLE result \(\$\{columns\.join\(', '\)\}\)`$/,
      /^`COPY result TO \$\{sqlPathLiteral\(file, '--out'\)\} \(FORMAT parquet\)`$/,
      // A command line printed for the user to try, never run.
      /^`\\nExplore it: \$\{binFromHere\(\)\} query --db/,
    ];
    const offenders: string[] = [];
    for (const file of ['src', 'jobs'].flatMap((dir) => tsFiles(join(projectRoot(), dir)))) {
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/`(?:[^`\\]|\\.)*`/gs)) {
        const literal = match[0];
        if (!literal.includes('${')) continue;
        if (
          !/\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|COPY|ATTACH|PRAGMA|INSTALL|ALTER|FROM|WHERE)\b/.test(
            literal,
          )
        )
          continue;
        if (allowed.some((pattern) => pattern.test(literal))) continue;
        offenders.push(`${file}: ${literal.slice(0, 120)}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => path.endsWith('.ts') && statSync(path).isFile());
}
