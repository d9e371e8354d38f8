/**
 * Every date a person gives is read one way (src/config/values.ts's parseDateText): ISO 8601, a
 * day the calendar has, never rolled over into the next month; each flag refuses an impossible one
 * in the same words, exit 2, before anything is touched.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDateText } from '../../../src/config/values.js';
import { NO_SERVICE } from '../../helpers/bad-input.js';
import { runMain, shownLines } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

const iso = (text: string) => {
  const parsed = parseDateText(text);
  return parsed.ok ? parsed.date.toISOString() : parsed.problem;
};

describe('parseDateText', () => {
  it('reads a day as its midnight UTC, an instant with its zone, one without a zone as UTC', () => {
    expect(iso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(iso('2026-01-31T08:00:00Z')).toBe('2026-01-31T08:00:00.000Z');
    expect(iso('2026-01-31T08:00+02:00')).toBe('2026-01-31T06:00:00.000Z');
    expect(iso('2026-01-31T08:00:00.25-0130')).toBe('2026-01-31T09:30:00.250Z');
    expect(iso('2026-01-31 08:00:00')).toBe('2026-01-31T08:00:00.000Z');
    expect(iso('0099-12-31')).toBe('0099-12-31T00:00:00.000Z');
  });

  it('refuses a day or time the calendar does not have, saying why', () => {
    expect(iso('2025-02-29')).toBe('"2025-02-29" is not a date: February 2025 has 28 days');
    expect(iso('2026-04-31')).toBe('"2026-04-31" is not a date: April 2026 has 30 days');
    expect(iso('2026-00-10')).toBe('"2026-00-10" is not a date: there is no month 0');
    expect(iso('2026-01-00')).toBe('"2026-01-00" is not a date: January 2026 has 31 days');
    expect(iso('2026-01-01T24:00Z')).toBe('"2026-01-01T24:00Z" is not a date: 24:00 is not a time of day');
    expect(iso('2026-01-01T10:00+25:00')).toMatch(/\+25:00 is not a time zone offset/);
    expect(iso('yesterday')).toMatch(/^"yesterday" is not an ISO 8601 date or instant \(e\.g\. /);
    expect(iso('2026-1-5')).toMatch(/is not an ISO 8601 date/);
  });
});

describe('every date flag', () => {
  const refusal = (value: string) => `"${value}" is not a date: February 2026 has 28 days`;

  const DB = '<db>';
  it.each([
    ['sync', '--since', '2026-02-30', '--db', DB],
    ['state', 'reset', '--kind', 'all', '--yes', '--since', '2026-02-30', '--db', DB],
    ['simulate', '--port', '0', '--start', '2026-02-30'],
    ['simulate', '--port', '0', '--end', '2026-02-30'],
    ['report', 'billing', '--from', '2026-02-30', '--db', DB],
    ['report', 'billing', '--to', '2026-02-30', '--db', DB],
  ])('%s %s ... refuses 2026-02-30 by name, exit 2, and creates no file', async (...args) => {
    const db = join(tempDir(), 'never.duckdb');
    const flag = args[args.indexOf('2026-02-30') - 1];
    const result = await runMain(
      args.map((a) => (a === DB ? db : a)),
      NO_SERVICE,
    );
    expect(result.code, result.stderr).toBe(2);
    expect(shownLines(result.stderr)).toEqual([`transcript-sync: ${flag}: ${refusal('2026-02-30')}`]);
    expect(existsSync(db)).toBe(false);
  });

  it('simulate --end takes now, or says that it could', async () => {
    const result = await runMain(['simulate', '--port', '0', '--end', 'tomorrow']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--end: "tomorrow" is neither an ISO 8601 date or instant nor now');
  });
});
