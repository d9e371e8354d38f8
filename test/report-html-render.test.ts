/**
 * The billing HTML page as a browser renders it (headless Chromium, 1280 x 800): the legend on
 * screen, nothing wider than the window, one bar per non-zero row at its period's slot of a
 * continuous axis (empty periods keep their slot), totals and markers on the page. Skipped where
 * /usr/bin/chromium is missing (.ci/run installs it). The screenshot is kept in the temp folder
 * for a look: TSYNC_KEEP_SCREENSHOT=1 prints its path.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { command as report } from '../src/cli/report.js';
import {
  fileTempDir,
  loadedDatabase,
  recordSyncs,
  runCommand,
  smallDataset,
} from './helpers/analytics-data.js';
import { HeadlessPage, hasChromium } from './helpers/chromium.js';

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
  };
})()`;

async function render(name: string, args: readonly string[]): Promise<{ layout: Layout; rows: Row[] }> {
  const run = async (format: string) => {
    const outcome = await runCommand(report, ['billing', '--db', db, ...args, '--format', format]);
    expect(outcome.error?.message).toBeUndefined();
    return outcome.stdout;
  };
  const rows = (JSON.parse(await run('json')) as { rows: Row[] }).rows;
  const page = join(temp.dir, `${name}.html`);
  writeFileSync(page, await run('html'));
  browser ??= await HeadlessPage.open(1280, 800);
  await browser.goto(pathToFileURL(page).href);
  const layout = await browser.evaluate<Layout>(MEASURE);
  writeFileSync(join(temp.dir, `${name}.png`), await browser.screenshot());
  return { layout, rows };
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
    const { layout, rows } = await render('days', [
      '--by',
      'day',
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
});
