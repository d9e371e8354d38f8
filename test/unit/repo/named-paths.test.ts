import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every repository path a tracked text names (a test, a module, an SQL file, a docs page) exists:
 * docs and comments that point at a moved or deleted file mislead the next reader. A superseded
 * decision record is the exception: it is not edited (docs/decisions/README.md) and may name what
 * the decision that replaced it removed.
 */
const NAMED_PATH = /\b((?:test|src|bench|sql|docs)\/[A-Za-z0-9_./-]+\.(?:ts|sql|md|cjs|json))\b/g;

/** Paths made up on purpose: placeholders and the synthetic trees the architecture test builds. */
const NOT_FILES = new Set(['sql/NNN_name.sql']);
const SYNTHETIC = ['test/unit/repo/architecture.test.ts', 'test/unit/repo/named-paths.test.ts'];

/** A decision record whose status line says a later record superseded it, or part of it. */
function superseded(file: string, text: string): boolean {
  return file.startsWith('docs/decisions/') && /^Status:[^\n]*\bsuperseded\b/im.test(text);
}

function trackedTexts(): string[] {
  return execFileSync('git', ['ls-files'], { encoding: 'utf8' })
    .split('\n')
    .filter((file) => /\.(md|ts|sql|cjs|json)$/.test(file) && !SYNTHETIC.includes(file))
    .filter((file) => existsSync(file));
}

describe('paths named in tracked text', () => {
  it('each names a file that exists', () => {
    const missing: string[] = [];
    for (const file of trackedTexts()) {
      const text = readFileSync(file, 'utf8');
      if (superseded(file, text)) continue;
      for (const match of text.matchAll(NAMED_PATH)) {
        const path = match[1] as string;
        if (!NOT_FILES.has(path) && !existsSync(path)) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
