/**
 * The billing HTML page as a browser renders it (headless Chromium, 1280 x 800): the legend on
 * screen, nothing wider than the window, one bar per non-zero row at its period's slot of a
 * continuous axis (empty periods keep their slot), totals and markers on the page; with three
 * group columns and prices, a table that fits with every value on one line, a colour per series up
 * to MAX_SERIES and the smallest as `other`, and the money total on the first screen. Skipped where
 * /usr/bin/chromium is missing (.ci/run installs it). The screenshot is kept in the temp folder
 * for a look: TSYNC_KEEP_SCREENSHOT=1 prints its path.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_SERIES } from '../../../src/analytics/format/bar-chart-svg.js';
import { command as report } from '../../../src/cli/commands/report.js';
import { loadedDatabase, recordSyncs, runCommand, smallDataset } from '../../helpers/analytics-data.js';
import { HeadlessPage, hasChromium } from '../../helpers/chromium.js';
import { fileTempDir } from '../../helpers/tmp.js';

type Row = Record<string, unknown>;

// A ten-day hole in September, so the axis has empty slots to keep.
const records = smallDataset(41, 80).filter((r) => {
  const created = String(r['created_at']);
  return created < '2026-09-01' || created >= '2026-09-11';
});
const db = loadedDatabase('report-html', records);
const temp = fileTempDir('tsync-html-');
// One browser for the file's pages: a Chromium start is most of what a render costs.
let browser: HeadlessPage | undefined;
beforeAll(() => recordSyncs(db, new Date('2026-11-01T00:00:00Z')));
afterAll(async () => {
  await browser?.close();
  if (process.env['TSYNC_KEEP_SCREENSHOT']) console.log(`screenshots kept in ${temp.dir}`);
  else temp.remove();
});

interface Layout {
  viewport: { width: number; height: number };
  scrollWidth: number;
  legend: { left: number; right: number; top: number; bottom: number; items: number };
  svg: { left: number; right: number };
  bars: { title: string; x: number; width: number; height: number }[];
  totalRow: string;
  notes: string[];
  table: { right: number };
  /** Most lines any value cell takes, and the cells whose content is wider than the cell. */
  valueLines: number;
  cut: string[];
  swatches: string[];
  legendNames: string[];
  total: { top: number; bottom: number; text: string };
}

const MEASURE = `(() => {
  const box = (el) => el.getBoundingClientRect();
  const legend = document.getElementById('legend');
  const l = box(legend);
  const svg = box(document.querySelector('figure svg'));
  return {
    viewport: { width: window.innerWidth, height: window.innerHeight },
    scrollWidth: document.documentElement.scrollWidth,
    legend: { left: l.left, right: l.right, top: l.top, bottom: l.bottom, items: legend.querySelectorAll('li').length },
    svg: { left: svg.left, right: svg.right },
    bars: [...document.querySelectorAll('rect.bar')].map((r) => {
      const b = box(r);
      return { title: r.querySelector('title').textContent, x: b.left, width: b.width, height: b.height };
    }),
    totalRow: document.querySelector('tfoot tr').textContent,
    notes: [...document.querySelectorAll('ul.notes li')].map((li) => li.textContent),
    table: { right: box(document.querySelector('table')).right },
    valueLines: Math.max(...[...document.querySelectorAll('td')].map((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    })),
    cut: [...document.querySelectorAll('td, th')].filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent),
    swatches: [...legend.querySelectorAll('span')].map((s) => getComputedStyle(s).backgroundColor),
    legendNames: [...legend.querySelectorAll('li')].map((li) => li.textContent),
    total: (() => { const t = document.getElementById('total'); const b = box(t); return { top: b.top, bottom: b.bottom, text: t.textContent }; })(),
  };
})()`;

async function render(
  name: string,
  args: readonly string[],
): Promise<{ layout: Layout; rows: Row[]; total: Row }> {
  const run = async (format: string) => {
    const outcome = await runCommand(report, ['billing', '--db', db, ...args, '--format', format]);
    expect(outcome.error?.message).toBeUndefined();
    return outcome.stdout;
  };
  const { rows, total } = JSON.parse(await run('json')) as { rows: Row[]; total: Row };
  const page = join(temp.dir, `${name}.html`);
  writeFileSync(page, await run('html'));
  browser ??= await HeadlessPage.open(1280, 800);
  await browser.goto(pathToFileURL(page).href);
  const layout = await browser.evaluate<Layout>(MEASURE);
  writeFileSync(join(temp.dir, `${name}.png`), await browser.screenshot());
  return { layout, rows, total };
}

function expectRendered(layout: Layout, rows: readonly Row[], series: (row: Row) => string): void {
  expect(layout.viewport).toEqual({ width: 1280, height: 800 });
  // Nothing wider than the window, the legend wholly on screen with one entry per series.
  expect(layout.scrollWidth).toBeLessThanOrEqual(1280);
  expect(layout.svg.right).toBeLessThanOrEqual(1280);
  expect(layout.legend.left).toBeGreaterThanOrEqual(0);
  expect(layout.legend.right).toBeLessThanOrEqual(1280);
  expect(layout.legend.top).toBeGreaterThanOrEqual(0);
  expect(layout.legend.bottom).toBeLessThanOrEqual(800);
  expect(layout.legend.items).toBe(new Set(rows.map(series)).size);
  // One visible bar per non-zero row, titled with its row.
  const nonZero = rows.filter((r) => Number(r['billed_hours']) > 0);
  expect(layout.bars.map((b) => b.title).sort()).toEqual(
    nonZero.map((r) => `${r['period']} ${series(r)}: ${r['billed_hours']} billed hours`).sort(),
  );
  for (const bar of layout.bars) {
    expect(bar.height).toBeGreaterThan(0);
    expect(bar.x).toBeGreaterThanOrEqual(layout.svg.left);
    expect(bar.x + bar.width).toBeLessThanOrEqual(layout.svg.right + 0.5);
  }
  // A continuous axis: a bar's x is a linear function of its period's index among ALL periods.
  const periods = [...new Set(rows.map((r) => String(r['period'])))];
  const first = series(nonZero[0] ?? {});
  const points = layout.bars
    .filter((b) => b.title.includes(` ${first}: `))
    .map((b) => ({ i: periods.indexOf(b.title.split(' ')[0] ?? ''), x: b.x }));
  const [a, b] = [points[0], points.at(-1)];
  if (!a || !b || a.i === b.i) throw new Error('need two bars of one series to check the axis');
  const step = (b.x - a.x) / (b.i - a.i);
  for (const p of points) expect(Math.abs(p.x - (a.x + (p.i - a.i) * step))).toBeLessThan(1);
}

describe.skipIf(!hasChromium)('billing HTML in headless Chromium at 1280 px', () => {
  test('92 days per kind: legend on screen, one bar per non-zero row, empty days keep their slot, totals and markers shown', async () => {
    // Every day listed, the empty ones too, to check the chart's slot of each.
    const { layout, rows } = await render('days', [
      '--by',
      'day',
      '--include-empty',
      '--from',
      '2026-08-01',
      '--to',
      '2026-10-31',
    ]);
    expect(new Set(rows.map((r) => r['period'])).size).toBe(92);
    expectRendered(layout, rows, (r) => String(r['kind']));
    expect(layout.totalRow).toMatch(/^total/);
    expect(layout.notes[0]).toBe('as of 2026-11-01T00:00:00.000Z');
  }, 60_000);

  test('weeks per customer: a legend of every customer fits the window', async () => {
    const { layout, rows } = await render('customers', [
      '--by',
      'week',
      '--group-by',
      'metadata.customer',
      '--from',
      '2026-08-03',
      '--to',
      '2026-10-31',
    ]);
    expect(new Set(rows.map((r) => r['metadata.customer'])).size).toBeGreaterThan(3);
    expectRendered(layout, rows, (r) => String(r['metadata.customer']));
  }, 60_000);

  test('three group columns with prices: the table fits, values on one line, a colour per series, the money total on top', async () => {
    const prices = join(temp.dir, 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({ currency: 'EUR', per_hour: { 'pre-recorded': 0.61, live: 0.75 } }),
    );
    const { layout, rows, total } = await render('three-groups', [
      '--by',
      'week',
      '--group-by',
      'kind,model,metadata.customer',
      '--prices',
      prices,
      '--from',
      '2026-08-03',
      '--to',
      '2026-10-31',
    ]);
    // The table: inside the window, no value wrapped (the period included), nothing cut.
    expect(layout.scrollWidth).toBeLessThanOrEqual(1280);
    expect(layout.table.right).toBeLessThanOrEqual(1280);
    expect(layout.valueLines).toBe(1);
    expect(layout.cut).toEqual([]);
    // More series than colours: the largest keep a colour each, the rest are one "other", grey.
    const series = (r: Row) => [r['kind'], r['model'], r['metadata.customer']].join(' / ');
    const names = [...new Set(rows.map(series))];
    expect(names.length).toBeGreaterThan(MAX_SERIES);
    const sums = new Map(names.map((n) => [n, 0]));
    for (const r of rows) sums.set(series(r), (sums.get(series(r)) ?? 0) + Number(r['cost']));
    const largest = [...names]
      .sort((a, b) => (sums.get(b) ?? 0) - (sums.get(a) ?? 0))
      .slice(0, MAX_SERIES - 1);
    const other = `other (${names.length - largest.length} smaller)`;
    expect(layout.legendNames).toEqual([...names.filter((n) => largest.includes(n)), other]);
    expect(new Set(layout.swatches).size).toBe(MAX_SERIES);
    // Bars show cost: each kept row its own, "other" the sum of the rest in its period.
    const cents = (rs: readonly Row[]) => Math.round(rs.reduce((s, r) => s + Number(r['cost']) * 100, 0));
    const periods = [...new Set(rows.map((r) => String(r['period'])))];
    const expected = [
      ...rows
        .filter((r) => largest.includes(series(r)) && Number(r['cost']) > 0)
        .map((r) => `${r['period']} ${series(r)}: ${Number(r['cost'])} EUR`),
      ...periods.flatMap((p) => {
        const sum = cents(rows.filter((r) => r['period'] === p && !largest.includes(series(r))));
        return sum > 0 ? [`${p} ${other}: ${sum / 100} EUR`] : [];
      }),
    ];
    expect(layout.bars.map((b) => b.title).sort()).toEqual(expected.sort());
    // The money total sits on the first screen, under the title.
    expect(layout.total.bottom).toBeLessThanOrEqual(800);
    expect(layout.total.text).toBe(
      `Total: ${Number(total['cost']).toFixed(2)} EUR for ${Number(total['billed_hours']).toFixed(6)} billed hours, ${total['jobs']} jobs`,
    );
  }, 60_000);
});
