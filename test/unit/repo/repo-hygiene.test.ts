/**
 * What every tracked text file must not hold. Merge conflict markers (one once landed in the
 * README: nothing else in the suite reads prose files). And history: the product speaks of itself
 * only, so a file never cites a tracker's numbered item, a working session, a past run by number or
 * a lab's name; the figures behind a decision live in docs/decisions and BENCHMARKS.md, and the
 * story in git. The history patterns are built from parts so that this file does not match itself.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/util/paths.js';

const ROOT = projectRoot();
const CONFLICT = /^(<{7} |={7}$|>{7} )/m;

const ISSUE = ['iss', 'ue'].join('');
const SESSION = ['sess', 'ion'].join('');
const LAB = ['LOADER', 'LAB'].join('-');
const RUN = 'run';
const PASS = 'pass';

/** Each history marker: a name for the report and the pattern that finds it. */
const HISTORY_MARKERS: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  // The item's word, one or more numbers after it: "<word> 13", "<word>s 12 and 14", "<word> #7".
  { name: `${ISSUE} <n>`, pattern: new RegExp(`\\b${ISSUE}s? #?\\d+`, 'i') },
  { name: `${SESSION} <n>`, pattern: new RegExp(`\\b${SESSION}s? #?\\d+`, 'i') },
  { name: `before/after ${ISSUE}`, pattern: new RegExp(`\\b(before|after) ${ISSUE}\\b`, 'i') },
  { name: LAB, pattern: new RegExp(LAB, 'i') },
  // A past run or pass by number; a unit, a range or a version after the number ("1 ms", "0 to N",
  // "20.20") is not history and is left alone.
  {
    name: 'run/pass <n>',
    pattern: /\b(run|pass) #?\d+\b(?![.,]\d)(?!\s*(ms|s|x|%|to|-))/i,
  },
];

/** Tracked files, as git lists them (a file not yet added is not the repository's). */
function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\0').filter((path) => path !== '');
}

/** The file's text, or undefined when it is binary (a NUL byte) or gone from the work tree. */
function textOf(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(ROOT, path), 'utf8');
  } catch {
    return undefined;
  }
  return text.includes('\0') ? undefined : text;
}

/** `path:line: marker: the line` for each line of `text` that holds a history marker. */
function historyIn(path: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { name, pattern } of HISTORY_MARKERS)
      if (pattern.test(line)) found.push(`${path}:${i + 1}: ${name}: ${line.trim().slice(0, 120)}`);
  });
  return found;
}

describe('the repository', () => {
  const files = trackedFiles()
    .map((path) => ({ path, text: textOf(path) }))
    .filter((file): file is { path: string; text: string } => file.text !== undefined);

  it('holds no merge conflict markers', () => {
    expect(files.filter(({ text }) => CONFLICT.test(text)).map(({ path }) => path)).toEqual([]);
  });

  it('speaks of itself only: no numbered items of a tracker, sessions or past runs', () => {
    const found = files.flatMap(({ path, text }) => historyIn(path, text));
    expect(found).toEqual([]);
  });

  it('finds each marker in prose and lets ordinary text pass', () => {
    const marked = [
      `measured ${ISSUE} 13`,
      `see ${ISSUE}s 12 and 14`,
      `in ${SESSION} 7`,
      `before ${ISSUE} fourteen`,
      `the ${LAB} figures`,
      `in ${RUN} 7 it took`,
      `${PASS} #2 of the bench`,
    ];
    for (const line of marked) expect(historyIn('x', line), line).not.toEqual([]);
    const ordinary = [
      'a run that ended ok',
      'run 1 ms later',
      'npm run bench -- --only backfill',
      'each pass over the bytes',
      'an issue the service has',
      'for (let run = 0; run < 3; run += 1)',
      'the machines run 20.20',
    ];
    for (const line of ordinary) expect(historyIn('x', line), line).toEqual([]);
  });
});
