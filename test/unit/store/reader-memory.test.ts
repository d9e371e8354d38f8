import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withReader } from '../../../src/analytics/read/open-reader.js';
import { generateDataset } from '../../../src/simulator/index.js';
import { withReadingMemory } from '../../../src/store/file/reading-memory.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { CHECKS } from '../../../src/store/verify.js';
import { loadRecords } from '../../helpers/analytics-data.js';
import { writeBigRawFile } from '../../helpers/big-raw-file.js';
import { runMain } from '../../helpers/cli.js';
import { fileTempDir, tempDir } from '../../helpers/tmp.js';

const records = generateDataset({
  seed: 31,
  preRecorded: 3,
  live: 2,
  utterancesPerJob: 2,
  wordsPerUtterance: 3,
});

/** The records loaded once for the file; each test reads a copy of its own. */
const template = fileTempDir('tsync-reader-memory-');
const templateDb = join(template.dir, 'template.duckdb');
beforeAll(() => loadRecords(templateDb, records));
afterAll(() => template.remove());

function loadedFile(): string {
  const path = join(tempDir(), 'read.duckdb');
  copyFileSync(templateDb, path);
  return path;
}

/** An aggregate far over the smallest budget's memory_limit: DuckDB spills it to its temp folder. */
const SPILLING = 'SELECT count(*) AS n FROM (SELECT DISTINCT i FROM range(6000000) AS t(i))';

describe('a reading within the memory budget', () => {
  it('gives DuckDB a memory_limit that follows --memory, and TSYNC_MEMORY without it', async () => {
    const path = loadedFile();
    const limit = async (args: string[], env: Record<string, string> = {}) => {
      const sql = "SELECT current_setting('memory_limit') AS m";
      const result = await runMain(['query', sql, '--format', 'csv', '--db', path, ...args], env);
      expect(result.stderr).toBe('');
      return result.stdout.trim().split('\n')[1];
    };
    const small = await limit(['--memory', '256MB']);
    const large = await limit(['--memory', '2GB']);
    const fromEnv = await limit([], { TSYNC_MEMORY: '2GB' });
    const byDefault = await limit([]);
    expect(small).not.toBe(large);
    expect(fromEnv).toBe(large);
    // 2 GB leaves DuckDB more than 512 MB does, and no budget leaves it DuckDB's default (80% of RAM).
    expect(parseMiB(large)).toBeGreaterThan(parseMiB(byDefault));
    expect(parseMiB(byDefault)).toBeGreaterThan(parseMiB(small));
    expect(parseMiB(large)).toBeLessThan(2000);
  });

  it('says --memory in the --help of every reading command', async () => {
    for (const command of ['verify', 'report', 'status', 'query', 'export', 'runs']) {
      const { stdout } = await runMain([command, '--help']);
      expect(stdout, command).toMatch(/--memory SIZE/);
      expect(stdout, command).toMatch(/TSYNC_MEMORY/);
    }
  });

  it('verify --hashes reads raw in a reading of its own and lists every check in order', async () => {
    const path = loadedFile();
    const result = await runMain(['verify', '--hashes', '--json', '--db', path, '--memory', '256MB']);
    expect(result.code, result.stderr).toBe(0);
    const names = (JSON.parse(result.stdout) as { name: string }[]).map((r) => r.name);
    expect(names).toEqual(CHECKS.map((c) => c.name));
    expect(existsSync(`${path}.tmp-${process.pid}`)).toBe(false);
  });

  it('spills into <file>.tmp-<pid> beside the file and removes it on close', async () => {
    const path = loadedFile();
    const temp = `${path}.tmp-${process.pid}`;
    const db = await openReadOnly(path, { memory: 192e6 });
    try {
      const [setting] = await db.all<{ dir: string }>("SELECT current_setting('temp_directory') AS dir");
      expect(setting?.dir).toBe(temp);
      const [row] = await db.all<{ n: number }>(SPILLING);
      expect(row?.n).toBe(6_000_000);
      expect(existsSync(temp)).toBe(true);
    } finally {
      await db.close();
    }
    expect(existsSync(temp)).toBe(false);
  });

  it('removes its spill folder when the reading fails', async () => {
    const path = loadedFile();
    const temp = `${path}.tmp-${process.pid}`;
    const failing = withReader(path, { lockWaitMs: 0, memory: 192e6 }, async (reader) => {
      await reader.all(SPILLING);
      expect(existsSync(temp)).toBe(true);
      throw new Error('the reading failed');
    });
    await expect(failing).rejects.toThrow('the reading failed');
    expect(existsSync(temp)).toBe(false);
  });

  it('removes the spill folders of readers that died, never a living one', async () => {
    const path = loadedFile();
    const dead = `${path}.tmp-999999999`;
    const living = `${path}.tmp-${process.ppid}`;
    mkdirSync(dead);
    mkdirSync(living);
    const db = await openReadOnly(path);
    await db.close();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(living)).toBe(true);
  });
});

describe('verify --hashes within the budget', () => {
  it('reads raw whose vectors outgrow the budget with the higher ceiling', async () => {
    // 3,000 records of 30 KB in one row group: DuckDB decompresses a vector of 2,048 of them at once
    // (~61 MB), over what the 64 MiB a reading gets at the smallest budget holds.
    const path = join(tempDir(), 'big-raw.duckdb');
    await writeBigRawFile(path, 3_000);
    const result = await runMain(['verify', '--hashes', '--json', '--db', path, '--memory', '192MB']);
    expect(result.code, result.stderr).toBe(0);
    const hashes = (JSON.parse(result.stdout) as { name: string; ok: boolean }[]).find((r) =>
      r.name.includes('sha1'),
    );
    expect(hashes?.ok).toBe(true);
  });
});

describe("a writer's reading of the whole history (the publish after a sync)", () => {
  it("runs within a reader's memory_limit and gives the writer its own back after, even on failure", async () => {
    const path = loadedFile();
    const db = await openWriter(path);
    const limit = async () =>
      (await db.all<{ m: string }>("SELECT current_setting('memory_limit') AS m"))[0]?.m;
    try {
      const writers = await limit();
      const during = await withReadingMemory(db, { memoryLimit: 100 * 2 ** 20 }, limit);
      expect(during).toBe('100.0 MiB');
      expect(await limit()).toBe(writers);
      const failing = withReadingMemory(db, { memoryLimit: 100 * 2 ** 20 }, async () => {
        throw new Error('the publish failed');
      });
      await expect(failing).rejects.toThrow('the publish failed');
      expect(await limit()).toBe(writers);
    } finally {
      await db.close();
    }
  });
});

function parseMiB(text: string | undefined): number {
  const match = /^([\d.]+) (KiB|MiB|GiB)$/.exec(text ?? '');
  if (!match) throw new Error(`not a memory_limit: ${text}`);
  const scale = { KiB: 1 / 1024, MiB: 1, GiB: 1024 }[match[2] as 'KiB' | 'MiB' | 'GiB'];
  return Number(match[1]) * scale;
}
