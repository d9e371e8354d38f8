import { join } from 'node:path';
import { expect, test } from 'vitest';
import { serveReads } from '../../../src/analytics/read/read-server.js';
import { connectWriter } from '../../../src/analytics/read/reader.js';
import { silentLogger } from '../../../src/log.js';
import { openWriter } from '../../../src/store/open-file.js';
import { tempDir } from '../../helpers/tmp.js';

// Transcripts are rarely ASCII: a reply of several socket chunks must not cut a character in two
// (each half would decode to U+FFFD), in the request or in the reply.
test('non-ASCII text survives the read socket whole, across chunk boundaries', async () => {
  const db = await openWriter(join(tempDir(), 'text.duckdb'));
  const reads = await serveReads(db, { logger: silentLogger });
  try {
    // 3-byte and 4-byte UTF-8 characters, offset by one ASCII byte so boundaries fall inside them.
    const word = 'x日本語の文字起こし🎙️é';
    await db.run(`CREATE TABLE t AS SELECT i, repeat(?, 40) AS s FROM range(2000) r(i)`, [word]);
    const reader = await connectWriter(db.path);
    expect(reader).toBeDefined();
    const rows = await reader!.all<{ s: string }>('SELECT s FROM t ORDER BY i');
    expect(rows).toHaveLength(2000);
    expect(rows.every((row) => row.s === word.repeat(40))).toBe(true);
    // A request over one chunk, with characters across the boundary too.
    const literal = `${'é'.repeat(40_001)}日`;
    const [echo] = await reader!.all<{ v: string }>('SELECT $v AS v', { v: literal });
    expect(echo?.v).toBe(literal);
  } finally {
    await reads.close();
    await db.close();
  }
});
