import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { buildQuery, type ListParams, validateListParams } from '../../../src/extract/index.js';

function pairs(query: URLSearchParams): [string, string][] {
  return [...query.entries()];
}

describe('list query encoding', () => {
  it('always states offset and limit, defaulting to the first page of 20', () => {
    expect(pairs(buildQuery('live', {}))).toEqual([
      ['offset', '0'],
      ['limit', '20'],
    ]);
  });

  it('sends statuses and kinds as repeated keys and dates as ISO instants', () => {
    const query = buildQuery('transcription', {
      status: ['done', 'error'],
      kind: ['live', 'pre-recorded'],
      date: '2024-02-29',
      beforeDate: new Date('2024-03-01T00:00:00Z'),
      afterDate: '2024-02-01T01:00:00+01:00',
    });
    expect(query.getAll('status')).toEqual(['done', 'error']);
    expect(query.getAll('kind')).toEqual(['live', 'pre-recorded']);
    expect(query.get('date')).toBe('2024-02-29');
    expect(query.get('before_date')).toBe('2024-03-01T00:00:00.000Z');
    expect(query.get('after_date')).toBe('2024-02-01T00:00:00.000Z');
  });
});

describe('list query validation', () => {
  const bad: [string, string, ListParams][] = [
    ['a negative offset', 'offset', { offset: -1 }],
    ['a fractional offset', 'offset', { offset: 1.5 }],
    ['a zero limit', 'limit', { limit: 0 }],
    ['a non-finite limit', 'limit', { limit: Number.POSITIVE_INFINITY }],
    ['a date with a time', 'date', { date: '2024-01-01T00:00:00Z' }],
    ['a date that does not exist', 'date', { date: '2023-02-29' }],
    ['an unparsable before_date', 'before_date', { beforeDate: 'yesterday' }],
    ['an instant without a zone', 'after_date', { afterDate: '2024-01-01T10:00:00' }],
    ['an invalid Date object', 'before_date', { beforeDate: new Date(Number.NaN) }],
    ['an unknown status', 'status', { status: ['finished' as 'done'] }],
  ];
  for (const [what, setting, params] of bad) {
    it(`rejects ${what}, naming ${setting}`, () => {
      const error = catchError(() => buildQuery('pre-recorded', params));
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).setting).toBe(setting);
    });
  }

  it('rejects kind on the kind-specific lists but accepts it on /v2/transcription', () => {
    expect(() => validateListParams('live', { kind: ['live'] })).toThrow(/only/);
    expect(() => validateListParams('pre-recorded', { kind: ['live'] })).toThrow(ConfigError);
    expect(() => validateListParams('transcription', { kind: ['live'] })).not.toThrow();
    expect(() => validateListParams('transcription', { kind: ['both' as 'live'] })).toThrow(/unknown value/);
  });

  it('rejects an unknown list name', () => {
    expect(() => validateListParams('jobs' as 'live', {})).toThrow(ConfigError);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
