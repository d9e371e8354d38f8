/**
 * A figure that several files quote from BENCHMARKS.md says the same in each: the peak of a
 * million-job back-fill through the launcher (its last row, "second, done"), as the README, the
 * Compose file and the pages on memory and operating quote it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/util/paths.js';

const read = (file: string): string => readFileSync(join(projectRoot(), file), 'utf8').replace(/\s+/g, ' ');

/** Each quoting file and how it words the figure: the first group is the MiB. */
const QUOTES: readonly (readonly [string, RegExp])[] = [
  ['README.md', /a back-fill of a million jobs peaks at (\d+) MiB/],
  ['docker-compose.yml', /one of a million jobs at (\d+) MiB/],
  ['docs/configuration.md', /A back-fill of a million jobs peaks at (\d+) MiB at most/],
  ['docs/operating.md', /(\d+) MiB at most for a million/],
];

describe("the million-job back-fill's peak", () => {
  it('is quoted as BENCHMARKS.md measured it last', () => {
    const measured = /\| second, done \| [^|]+ \| [^|]+ \| \*\*(\d+) MiB\*\* \|/.exec(
      read('BENCHMARKS.md'),
    )?.[1];
    expect(measured).toMatch(/^\d+$/);
    const quoted = QUOTES.map(([file, pattern]) => [file, pattern.exec(read(file))?.[1]]);
    expect(quoted).toEqual(QUOTES.map(([file]) => [file, measured]));
  });
});
