/**
 * The unit tier stays in-process and needs no build: a test file that starts the built program
 * (bin/ over dist/) or reads dist/ belongs in test/e2e/, and every test file is in one tier.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/util/paths.js';

/**
 * What only an end-to-end test does: import a helper that spawns the bin (helpers/cli's runCli,
 * startCli, BIN; helpers/worker's spawnCli; helpers/cli-unprivileged; helpers/storm's
 * startTranscriptSync), or join a path into dist/.
 */
const STARTS_THE_BUILD = [
  /import \{[^}]*\b(runCli|startCli|BIN|spawnCli|startTranscriptSync|runCliUnprivileged)\b[^}]*\} from '\.\.?\//,
  /\bjoin\([^\n]*'dist'/,
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'helpers' || entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(projectRoot(), path)] : [];
  });
}

describe('test tiers', () => {
  it('every test file that starts the built program is in the e2e tier', () => {
    const unit = testFiles(join(projectRoot(), 'test', 'unit'));
    expect(unit.length).toBeGreaterThan(40);
    const misplaced = unit.filter((file) => {
      const text = readFileSync(join(projectRoot(), file), 'utf8');
      return STARTS_THE_BUILD.some((pattern) => pattern.test(text));
    });
    expect(misplaced, 'move these to test/e2e/, or run the CLI with runMain').toEqual([]);
  });

  it('every test file is in a tier: test/unit/ or test/e2e/', () => {
    const all = testFiles(join(projectRoot(), 'test'));
    expect(all.filter((file) => !/^test\/(unit|e2e)\//.test(file))).toEqual([]);
    expect(existsSync(join(projectRoot(), 'test', 'e2e'))).toBe(true);
  });
});
