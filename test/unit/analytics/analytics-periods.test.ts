import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parsePeriod, periodOf, periodRange, rangeFromFlags } from '../../../src/analytics/periods.js';
import { ConfigError } from '../../../src/errors.js';

describe('report periods', () => {
  test('--from and --to are inclusive: --to names the last day or month covered', () => {
    expect(rangeFromFlags('2026-10-01', '2026-10-31')).toEqual({
      from: new Date('2026-10-01T00:00:00.000Z'),
      before: new Date('2026-11-01T00:00:00.000Z'),
    });
    expect(rangeFromFlags('2026-10', '2026-12')).toEqual({
      from: new Date('2026-10-01T00:00:00.000Z'),
      before: new Date('2027-01-01T00:00:00.000Z'),
    });
    expect(rangeFromFlags(undefined, '2028-02')).toEqual({
      from: undefined,
      before: new Date('2028-03-01T00:00:00.000Z'),
    });
  });

  test('impossible dates and other shapes are refused, naming the flag', () => {
    for (const [from, to] of [
      ['2026-02-29', undefined],
      ['2026-13', undefined],
      [undefined, '2026-10-32'],
      [undefined, '10/31/2026'],
      ['2026-11-02', '2026-11-01'],
    ] as const) {
      expect(() => rangeFromFlags(from, to)).toThrow(ConfigError);
    }
    expect(parsePeriod('2028-02-29')?.unit).toBe('day');
  });

  test('the last millisecond of a day belongs to that day, the next one to the next day', () => {
    expect(periodOf('day', new Date('2026-10-31T23:59:59.999Z'))).toBe('2026-10-31');
    expect(periodOf('day', new Date('2026-11-01T00:00:00.000Z'))).toBe('2026-11-01');
    expect(periodOf('month', new Date('2026-10-31T23:59:59.999Z'))).toBe('2026-10');
  });

  test('every instant lies inside the range of its own day and month', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        }),
        (instant) => {
          for (const by of ['day', 'month'] as const) {
            const range = periodRange(by, periodOf(by, instant));
            expect(range.from.getTime()).toBeLessThanOrEqual(instant.getTime());
            expect(instant.getTime()).toBeLessThan(range.before.getTime());
          }
        },
      ),
    );
  });
});
