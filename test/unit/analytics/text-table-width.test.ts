/**
 * The terminal table lines up what a terminal shows: cells padded and cut by display width (a CJK
 * character takes two columns, a combining mark none, an emoji two), and the numbers of one column
 * with one number of decimals, so that 130.470 stands above 130.449.
 */
import { describe, expect, test } from 'vitest';
import type { ResultTable } from '../../../src/analytics/format/result-table.js';
import { cutToWidth, displayWidth, formatTextTable } from '../../../src/analytics/format/text-table.js';
import { command as query } from '../../../src/cli/commands/query.js';
import { renderTable } from '../../../src/cli/table.js';
import { craftJob, loadedDatabase, runCommand, smallDataset } from '../../helpers/analytics-data.js';

describe('displayWidth', () => {
  test.each([
    ['', 0],
    ['Acme Corp', 9],
    ['日本語', 6],
    ['株式会社アクメ', 14],
    ['한국어', 6],
    ['ＡＢＣ', 6],
    ['e\u0301te\u0301', 3],
    ['Ölçü', 4],
    ['Ελλάδα', 6],
    ['👍', 2],
    ['👨‍👩‍👧', 2],
    ['🇫🇷', 2],
    ['✌️', 2],
    ['a\u200bb', 2],
    ['\u0301', 0],
  ])('%s takes %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });

  test('cutting keeps whole characters and never passes the width', () => {
    expect(cutToWidth('日本語のテキスト', 7)).toBe('日本語…');
    expect(displayWidth(cutToWidth('日本語のテキスト', 7))).toBeLessThanOrEqual(7);
    expect(cutToWidth('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
    expect(cutToWidth('👍👍👍', 4)).toBe('👍…');
    expect(cutToWidth('short', 60)).toBe('short');
  });
});

describe('the terminal table', () => {
  test('pads CJK, combining and emoji cells by display width, so the next column lines up', () => {
    const table: ResultTable = {
      columns: [
        { name: 'customer', type: 'text' },
        { name: 'jobs', type: 'integer' },
      ],
      rows: [
        ['Acme Corp', 12],
        ['株式会社アクメ', 3],
        ['Cafe\u0301 Lune', 7],
        ['👍 Thumbs', 5],
      ],
    };
    const text = formatTextTable(table);
    const lines = text.split('\n').slice(0, 6);
    expect(lines.map(displayWidth)).toEqual([20, 20, 20, 20, 20, 20]);
    expect(lines[3]).toBe('株式会社アクメ     3');
    expect(lines[4]).toBe('Cafe\u0301 Lune          7');
  });

  test('cuts long wide text at 60 columns, not 60 characters', () => {
    const long = '語'.repeat(50);
    const text = formatTextTable({ columns: [{ name: 'text', type: 'text' }], rows: [[long]] });
    const cell = text.split('\n')[2] ?? '';
    expect(displayWidth(cell)).toBeLessThanOrEqual(60);
    expect(cell.endsWith('…')).toBe(true);
  });

  test('numbers of one column show the same number of decimals', () => {
    const text = formatTextTable({
      columns: [
        { name: 'p50_seconds', type: 'number' },
        { name: 'jobs', type: 'integer' },
      ],
      rows: [
        [130.47, 1],
        [130.449, 2],
        [12, 3],
        [null, 4],
      ],
    });
    expect(text.split('\n').slice(2, 6)).toEqual([
      '    130.470     1',
      '    130.449     2',
      '     12.000     3',
      '       NULL     4',
    ]);
  });

  test('renderTable (status, runs) lines up wide text too', () => {
    const text = renderTable([
      { name: '日本', n: 1 },
      { name: 'ab', n: 22 },
    ]);
    expect(text.split('\n').slice(0, 4)).toEqual(['name   n', '----  --', '日本   1', 'ab    22']);
  });
});

describe('query over latency_daily', () => {
  const template = smallDataset(5, 4);
  const day = (d: number, seconds: string) =>
    craftJob(template, {
      id: `latency-${d}`,
      kind: 'live',
      createdAt: `2026-10-0${d}T10:00:00.000Z`,
      completedAt: `2026-10-0${d}T10:0${seconds}Z`,
    });
  // 130.470 s and 130.449 s: the view rounds both to the millisecond, a DOUBLE drops the last 0.
  const db = loadedDatabase('latency-width', [day(1, '2:10.470'), day(2, '2:10.449')]);

  test("the view's millisecond figures print with three decimals each, their points in line", async () => {
    const sql = "SELECT day, p50_seconds FROM latency_daily WHERE kind = 'live' ORDER BY day";
    const outcome = await runCommand(query, [sql, '--db', db]);
    expect(outcome.stdout.split('\n').slice(2, 4)).toEqual([
      '2026-10-01      130.470',
      '2026-10-02      130.449',
    ]);
  });
});
