/**
 * The unit tier stays in-process and needs no build: a test file that starts the built program
 * (bin/ over dist/) or reads dist/ must be listed in vitest.config.ts's E2E_TESTS.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/util/paths.js';
import { E2E_TESTS } from '../vitest.config.js';

/**
 * What only an end-to-end test does: import a helper that spawns the bin (helpers/cli's runCli,
 * startCli, BIN; helpers/worker's spawnCli; helpers/cli-unprivileged; bench/storm's
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
    const unit = testFiles(join(projectRoot(), 'test')).filter((file) => !E2E_TESTS.includes(file));
    const misplaced = unit.filter((file) => {
      const text = readFileSync(join(projectRoot(), file), 'utf8');
      return STARTS_THE_BUILD.some((pattern) => pattern.test(text));
    });
    expect(misplaced, 'add these to E2E_TESTS in vitest.config.ts, or run the CLI with runMain').toEqual([]);
  });

  it('every file of the e2e tier exists', () => {
    expect(E2E_TESTS.filter((file) => !existsSync(join(projectRoot(), file)))).toEqual([]);
  });
});
