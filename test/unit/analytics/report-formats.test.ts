import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { barChartSvg } from '../../../src/analytics/format/bar-chart-svg.js';
import { sumExact } from '../../../src/analytics/format/decimal-text.js';
import { formatCsv, formatHtmlPage } from '../../../src/analytics/format/output-format.js';
import type { ResultTable } from '../../../src/analytics/format/result-table.js';
import { formatTextTable } from '../../../src/analytics/format/text-table.js';
import { command as report } from '../../../src/cli/commands/report.js';
import { ExactNumber } from '../../../src/util/json-writer.js';
import { loadedDatabase, runCommand, smallDataset } from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

type Row = Record<string, unknown>;

/** More than a function call takes as arguments (V8 stops near 120,000 on its default stack). */
const MANY = 150_000;

const db = loadedDatabase('report-formats', smallDataset(5, 40));

async function billing(format: string, ...args: string[]): Promise<string> {
  const outcome = await runCommand(report, [
    'billing',
    '--db',
    db,
    '--by',
    'month',
    '--format',
    format,
    ...args,
  ]);
  expect(outcome.error).toBeUndefined();
  expect(outcome.code).toBe(0);
  return outcome.stdout;
}

/**
 * Checks that markup is well formed: every element closed in order (void elements self-closed),
 * no stray `<` or bare `&` in text. Returns the element names seen.
 */
function assertWellFormed(markup: string): string[] {
  const body = markup.replace(/^<!DOCTYPE html>\s*/, '');
  const stack: string[] = [];
  const seen: string[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let match = tag.exec(body); match; match = tag.exec(body)) {
    const text = body.slice(last, match.index);
    expect(text).not.toMatch(/[<>]/);
    expect(text).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
    last = tag.lastIndex;
    const [, closing, name = '', , selfClosing] = match;
    seen.push(name);
    if (selfClosing) continue;
    if (closing) expect(stack.pop()).toBe(name);
    else stack.push(name);
  }
  expect(body.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
  return seen;
}

describe('report formats', () => {
  test('JSON is one object whose rows carry period, kind, jobs, seconds and hours as numbers', async () => {
    const report = JSON.parse(await billing('json')) as { rows: Row[]; total: Row };
    expect(report.rows.length).toBeGreaterThan(0);
    for (const row of [...report.rows, { period: '2026-01', kind: 'live', ...report.total }]) {
      expect(row).toEqual({
        period: expect.stringMatching(/^\d{4}-\d{2}$/),
        kind: expect.stringMatching(/^(pre-recorded|live)$/),
        jobs: expect.any(Number),
        billed_seconds: expect.any(Number),
        billed_hours: expect.any(Number),
        audio_hours: expect.any(Number),
        transcription_hours: expect.any(Number),
      });
    }
  });

  test('CSV has a header with the JSON names, one line per JSON row with the same values, then the total', async () => {
    const { rows, total } = JSON.parse(await billing('json')) as { rows: Row[]; total: Row };
    const lines = (await billing('csv')).trimEnd().split('\n');
    expect(lines[0]).toBe('period,kind,jobs,billed_seconds,billed_hours,audio_hours,transcription_hours');
    // Figures as DuckDB spells their DECIMAL: every digit of the column's scale.
    const fixed = (value: unknown, decimals: number) => Number(value).toFixed(decimals);
    const line = (r: Row) =>
      [
        r['period'],
        r['kind'],
        r['jobs'],
        fixed(r['billed_seconds'], 3),
        fixed(r['billed_hours'], 6),
        fixed(r['audio_hours'], 6),
        fixed(r['transcription_hours'], 6),
      ].join(',');
    expect(lines.slice(1)).toEqual([...rows.map(line), line({ period: 'total', kind: '', ...total })]);
  });

  test('the terminal table shows a header, aligned rows, the total, a row count and the markers', async () => {
    const { rows } = JSON.parse(await billing('json')) as { rows: Row[] };
    const lines = (await billing('table')).trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^period\s+kind\s+jobs\s+billed_seconds\s+billed_hours\s+audio_hours\s+transcription_hours$/,
    );
    expect(lines[1]).toMatch(/^-+( +-+){6}$/);
    const count = lines.indexOf(`(${rows.length} rows)`);
    expect(lines[count - 1]).toMatch(/^total\s+\d+/);
    expect(lines[count + 1]).toMatch(/^as of /);
    const first = rows[0] as Row;
    expect(lines[2]).toContain(Number(first['billed_hours']).toFixed(6));
  });

  test('HTML is a well-formed page with an SVG bar per non-zero row, a legend, and the table of numbers under it', async () => {
    const { rows } = JSON.parse(await billing('json')) as { rows: Row[] };
    const html = await billing('html');
    const elements = assertWellFormed(html);
    expect(elements.filter((e) => e === 'svg')).toHaveLength(2); // open and close
    expect(html.indexOf('<svg')).toBeLessThan(html.indexOf('<table>'));
    expect(html).not.toMatch(/<script|<link|src=|href=/i);
    expect(html).toContain('<ul class="legend" id="legend">');
    const bars = [...html.matchAll(/<rect [^>]*><title>([^<]*)<\/title><\/rect>/g)].map((m) => m[1]);
    expect(bars).toEqual(
      rows
        .filter((r) => Number(r['billed_hours']) > 0)
        .map((r) => `${r['period']} ${r['kind']}: ${r['billed_hours']} billed hours`),
    );
    const tbody = html.slice(html.indexOf('<tbody>'), html.indexOf('</tbody>'));
    const cells = [...tbody.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
      [...(m[1] ?? '').matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((c) => c[1]),
    );
    expect(cells).toEqual(
      rows.map((r) => [
        r['period'],
        r['kind'],
        String(r['jobs']),
        Number(r['billed_seconds']).toFixed(3),
        Number(r['billed_hours']).toFixed(6),
        Number(r['audio_hours']).toFixed(6),
        Number(r['transcription_hours']).toFixed(6),
      ]),
    );
  });

  test('HTML with --prices shows cost: in the title, the bars and a money total above the chart; dates as people write them', async () => {
    const prices = join(tempDir(), 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({ currency: 'EUR', per_hour: { 'pre-recorded': 0.61, live: 0.75 } }),
    );
    const range = ['--from', '2026-08', '--to', '2026-10', '--prices', prices];
    const { rows, total } = JSON.parse(await billing('json', ...range)) as { rows: Row[]; total: Row };
    const html = await billing('html', ...range);
    assertWellFormed(html);
    expect(html).toContain('<h1>Cost (EUR) and billed hours per month and kind</h1>');
    const totalLine = `Total: ${Number(total['cost']).toFixed(2)} EUR for ${Number(total['billed_hours']).toFixed(6)} billed hours, ${total['jobs']} jobs`;
    expect(html).toContain(`<p class="total" id="total">${totalLine}</p>`);
    expect(html.indexOf('id="total"')).toBeLessThan(html.indexOf('<svg'));
    const bars = [...html.matchAll(/<rect [^>]*><title>([^<]*)<\/title><\/rect>/g)].map((m) => m[1]);
    expect(bars).toEqual(
      rows
        .filter((r) => Number(r['cost']) > 0)
        .map((r) => `${r['period']} ${r['kind']}: ${Number(r['cost'])} EUR`),
    );
    expect(html).toContain('>EUR</text>');
    const subtitle = /<p class="subtitle">([^<]*)<\/p>/.exec(html)?.[1] ?? '';
    expect(subtitle).toContain('created 1 Aug 2026 to 31 Oct 2026');
    expect(subtitle).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    // Without prices: hours in the title and the bars, the total in hours.
    const hours = await billing('html', '--from', '2026-08', '--to', '2026-10');
    expect(hours).toContain('<h1>Billed hours per month and kind</h1>');
    expect(hours).toMatch(/<p class="total" id="total">Total: [\d.]+ billed hours, \d+ jobs<\/p>/);
  });

  test('HTML with no billed jobs in range is still a whole page: no rows, the rows left out counted, and a chart saying so', async () => {
    const html = await billing('html', '--from', '2030-01', '--to', '2030-01');
    assertWellFormed(html);
    expect(html).toContain('No data in this range');
    expect(html).not.toMatch(/<td>2030-01<\/td>/);
    expect(html).toContain(
      'left out: 2 empty rows, periods and groups without jobs (--include-empty lists them)',
    );
    const listed = await billing('html', '--from', '2030-01', '--to', '2030-01', '--include-empty');
    expect(listed).toContain('No data in this range');
    expect(listed).toMatch(/<td>2030-01<\/td><td>live<\/td><td class="n">0<\/td>/);
  });

  test('a report of more rows than a call takes arguments (every day of 28 years, every group, zeros listed) is made whole', async () => {
    const wide = ['--by', 'day', '--from', '1999-01-01', '--to', '2026-12-31', '--include-empty'];
    const groups = ['--group-by', 'kind,model,metadata.customer'];
    const json = JSON.parse(await billing('json', ...wide, ...groups)) as { rows: Row[] };
    expect(json.rows.length).toBeGreaterThan(MANY);
  });

  test('status, latency and errors render in every format', async () => {
    for (const name of ['status', 'latency', 'errors']) {
      for (const format of ['table', 'csv', 'json', 'html']) {
        const outcome = await runCommand(report, [name, '--db', db, '--format', format]);
        expect(outcome.error).toBeUndefined();
        if (format === 'html') assertWellFormed(outcome.stdout);
        if (format === 'json') expect(Array.isArray(JSON.parse(outcome.stdout))).toBe(true);
      }
    }
  });
});

describe('formatters', () => {
  const tricky: ResultTable = {
    columns: [
      { name: 'text', type: 'text' },
      { name: 'n', type: 'number', decimals: 2 },
    ],
    rows: [
      ['<script>alert("x") & \'y\'</script>', 1.005],
      ['comma, "quote"\nnewline', null],
    ],
  };

  test('the terminal table, the chart and an exact sum take more rows than a call takes arguments', () => {
    const rows = Array.from({ length: MANY }, (_, i) => [`p${i}`, i]);
    const text = formatTextTable({
      columns: [
        { name: 'period', type: 'text' },
        { name: 'n', type: 'integer' },
      ],
      rows,
    });
    expect(text).toContain(`(${MANY} rows)`);
    const points = rows.map(([period], i) => ({
      period: String(period),
      series: 'live',
      value: i,
      label: String(i),
    }));
    const svg = barChartSvg(points, { unit: 'hours', label: 'chart', periods: points.map((p) => p.period) });
    expect(svg).toMatch(/<\/svg>$/);
    const sum = sumExact(rows.map(([, n]) => new ExactNumber(`${String(n)}.5`)));
    expect(sum.text).toBe(`${(MANY * MANY) / 2}.0`);
  });

  test('HTML escapes every text it is given', () => {
    const html = formatHtmlPage({ title: 'a < b & "c"', subtitle: '<i>', table: tricky });
    assertWellFormed(html);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;');
    expect(html).toContain('<title>a &lt; b &amp; &quot;c&quot;</title>');
  });

  test('CSV quotes fields with commas, quotes and newlines, and leaves NULL empty', () => {
    expect(formatCsv(tricky)).toBe(
      'text,n\n"<script>alert(""x"") & \'y\'</script>",1.005\n"comma, ""quote""\nnewline",\n',
    );
  });

  test('CSV for spreadsheets: text cells that would run as formulas get an apostrophe, numbers never; BOM and comments on request', () => {
    const table: ResultTable = {
      columns: [
        { name: 'customer', type: 'text' },
        { name: 'n', type: 'number' },
      ],
      rows: [
        ['=1+1', -5],
        ['+A1', 1],
        ['-2', 2],
        ['@SUM(A1)', 3],
        ['\tx', 4],
        ['\rx', 5],
        ['Acme = ok', 6],
      ],
      footer: ['total', 16],
    };
    expect(formatCsv(table, { guardFormulas: true })).toBe(
      "customer,n\n'=1+1,-5\n'+A1,1\n'-2,2\n'@SUM(A1),3\n'\tx,4\n\"'\rx\",5\nAcme = ok,6\ntotal,16\n",
    );
    expect(formatCsv(table).split('\n')[1]).toBe('=1+1,-5');
    const marked = formatCsv(table, { bom: true, comments: ['as of now', 'two\nlines'] });
    expect(marked.startsWith('\uFEFF# as of now\n# two lines\ncustomer,n\n')).toBe(true);
  });

  test('the terminal table keeps each row on one line and spells NULL', () => {
    const lines = formatTextTable(tricky).trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[3]).toMatch(/^comma, "quote" newline\s+NULL$/);
  });
});
