/**
 * What the program says when it refuses or reports, in its own words: no zod text, the fix for a
 * URL without its scheme, a bare 0 as a duration, counts with their nouns in the singular for one,
 * help texts and requirements without parentheses inside parentheses.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { summaryLine } from '../../../src/cli/sync-summary.js';
import { settingHelp } from '../../../src/config/describe.js';
import { DERIVED, given, parseGiven, resolveSettings, settingIssue } from '../../../src/config/resolve.js';
import { SETTINGS, type SettingName, settingOf } from '../../../src/config/settings.js';
import type { KindSummary } from '../../../src/sync/types.js';
import { NO_SERVICE } from '../../helpers/bad-input.js';
import { runMain, shownLines } from '../../helpers/cli.js';

const NAMES = Object.keys(SETTINGS) as SettingName[];

/** Why `text` given to `name`'s flag (or variable) is refused; undefined when it is taken. */
function problemOf(name: SettingName, text: string): string | undefined {
  const setting = settingOf(name);
  const flags = setting.flag ? { [setting.flag]: setting.switch ? true : text } : {};
  const env = setting.env ? { [setting.env]: text } : {};
  const parsed = parseGiven(name, given(name, flags, env));
  return parsed.ok ? undefined : parsed.problem;
}

/** How deep parentheses nest in `text`. */
function depth(text: string): number {
  let open = 0;
  let deepest = 0;
  for (const char of text) {
    if (char === '(') deepest = Math.max(deepest, ++open);
    if (char === ')') open -= 1;
  }
  return deepest;
}

describe('a refused value', () => {
  it.each([
    ['-1', '--rate-limit: must be a number above 0 (got "-1")'],
    ['abc', '--rate-limit: must be a number above 0 (got "abc")'],
  ])('--rate-limit %s is refused in a sentence of ours', async (value, line) => {
    const result = await runMain(
      ['sync', '--rate-limit', value, '--db', '/nonexistent/x.duckdb'],
      NO_SERVICE,
    );
    expect(result.code).toBe(2);
    expect(shownLines(result.stderr)).toEqual([`transcript-sync: ${line}`]);
  });

  it('is never refused in zod text, by any setting of the table', () => {
    const zodWords = /^[A-Z]|Invalid|expected |received|Too (small|big)|[<>]=?\d/;
    const raw: string[] = [];
    for (const name of NAMES) {
      for (const text of ['', ' ', 'abc', '-1', '1e999', '0.5', '99999999999', 'a b']) {
        const problem = problemOf(name, text);
        if (problem !== undefined && zodWords.test(problem.replace(/\(got ".*"\)$/, '')))
          raw.push(`${name} ${JSON.stringify(text)}: ${problem}`);
      }
    }
    expect(raw).toEqual([]);
  });

  it("maps an issue a schema left in zod's words to what the value must be", () => {
    const issue = (schema: z.ZodType, input: unknown) =>
      schema.safeParse(input, { error: settingIssue }).error?.issues[0]?.message;
    expect(issue(z.coerce.number().positive(), '-1')).toBe('must be a number above 0');
    expect(issue(z.coerce.number().positive(), 'abc')).toBe('must be a number');
    expect(issue(z.coerce.number().min(0).max(1), '2')).toBe('must be a number of at most 1');
    expect(issue(z.enum(['a', 'b']), 'c')).toBe('must be one of a, b');
  });

  it('an address without its scheme is refused with the URL it most likely means', async () => {
    const env = { ...NO_SERVICE, TSYNC_BASE_URL: '127.0.0.1:8787' };
    const result = await runMain(['sync', '--db', '/nonexistent/x.duckdb'], env);
    expect(result.code).toBe(2);
    expect(shownLines(result.stderr)).toEqual([
      'transcript-sync: TSYNC_BASE_URL: has no scheme; write http://127.0.0.1:8787 (got "127.0.0.1:8787")',
    ]);
    expect(problemOf('baseUrl', 'localhost:8787/api')).toMatch(/write http:\/\/localhost:8787\/api/);
    expect(problemOf('redisUrl', 'cache.internal:6379')).toMatch(/write redis:\/\/cache.internal:6379/);
    expect(problemOf('baseUrl', 'ftp://example.test')).toMatch(
      /^must start with http:\/\/ or https:\/\/ \(e/,
    );
    expect(problemOf('baseUrl', 'not a url')).toMatch(/^is not a URL \(e\.g\. https:\/\/api\.example\.com\)/);
    expect(problemOf('baseUrl', 'https://api.example.com/')).toBeUndefined();
  });

  it('a bare 0 is a duration where zero means something, and refused as zero elsewhere', () => {
    expect(resolveSettings(['lockWait', 'lookback'], [], { 'lock-wait': '0', lookback: '0' }, {})).toEqual({
      lockWait: 0,
      lookback: 0,
    });
    expect(problemOf('pendingMaxAge', '0')).toBe('"0" must be more than zero');
    expect(problemOf('lockWait', '5')).toMatch(/^"5" has no unit/);
  });

  it('a memory budget below the floor is refused without naming another command', async () => {
    const result = await runMain(['compact', '--memory', '100MB', '--db', '/nonexistent/x.duckdb']);
    expect(result.code).toBe(2);
    expect(shownLines(result.stderr)).toEqual([
      'transcript-sync: --memory: is too little: every command needs at least 192MB (got "100MB")',
    ]);
  });
});

describe('help texts and requirements', () => {
  it('nest no parentheses: not in a help line, not in what a missing setting asks for', () => {
    const nested: string[] = [];
    for (const name of NAMES) {
      if (depth(settingHelp(name)) > 1) nested.push(settingHelp(name));
      if (settingOf(name).default !== undefined || DERIVED[name]) continue;
      try {
        resolveSettings([name], [], {}, {});
      } catch (error) {
        if (depth((error as Error).message) > 1) nested.push((error as Error).message);
      }
    }
    expect(nested).toEqual([]);
  });

  it('a missing API key says what to set, the help after it', async () => {
    const result = await runMain(['sync', '--db', '/nonexistent/x.duckdb'], {
      TSYNC_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(shownLines(result.stderr)).toEqual([
      'transcript-sync: TSYNC_API_KEY: is required; set TSYNC_API_KEY to the API key sent as x-service-key (environment only, never a flag)',
    ]);
  });
});

describe("a run's summary line", () => {
  const kind: KindSummary = {
    runId: 'r',
    kind: 'live',
    mode: 'incremental',
    windowAfter: null,
    windowBefore: '2026-11-01T00:00:00.000Z',
    pages: 1,
    requests: 1,
    retries: 1,
    pauses: 0,
    jobsFetched: 1,
    inserted: 1,
    updated: 0,
    unchanged: 0,
    quarantined: 0,
    deleted: 0,
    expired: 0,
    restored: 0,
    words: 3,
    pendingRechecked: 0,
    restarts: 0,
    startedAt: '2026-11-01T00:00:00.000Z',
    finishedAt: '2026-11-01T00:00:01.000Z',
    outcome: 'ok',
  };

  it('counts one of a thing in the singular, more in the plural', () => {
    expect(summaryLine(kind)).toBe(
      'live: ok: 1 job in 1 page (1 request, 1 retry): 1 new, 0 updated, 0 unchanged; 1.0s',
    );
    expect(summaryLine({ ...kind, pages: 2, requests: 3, retries: 0, jobsFetched: 0 })).toBe(
      'live: ok: 0 jobs in 2 pages (3 requests, 0 retries): 1 new, 0 updated, 0 unchanged; 1.0s',
    );
  });
});
