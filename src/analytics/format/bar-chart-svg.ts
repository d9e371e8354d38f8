/**
 * An inline SVG bar chart of one value per period and series (billed hours per period and group):
 * grouped bars, a y axis with round ticks, and a <title> on every bar holding its exact value, so
 * the page needs no script, font or stylesheet from elsewhere. The date axis is continuous: every
 * period given has its slot, a zero value an empty one (no bar). The legend is HTML beside the
 * SVG (chartLegend), so it stays on screen however wide the SVG is.
 */
import { ExactNumber } from '../../util/json-writer.js';
import { sumExact, trimmedDecimal } from './decimal-text.js';
import { escapeHtml } from './output-format.js';

export interface BarPoint {
  readonly period: string;
  readonly series: string;
  /** The bar's height (a double is exact enough for pixels). */
  readonly value: number;
  /** The exact value as decimal text, as the bar's title shows it. */
  readonly label: string;
}

export interface BarChartOptions {
  /** Axis caption, e.g. "billed hours". */
  readonly unit: string;
  /** Accessible name of the chart. */
  readonly label: string;
  /** Every period of the axis, in order, those without a point included. */
  readonly periods: readonly string[];
}

/** Tableau 10: ten colours that stay apart; the last, grey, is the one "other" takes. */
const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#b07aa1',
  '#edc948',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
] as const;

/** The most series a chart draws, each in a colour of its own (limitSeries). */
export const MAX_SERIES = PALETTE.length;
const MARGIN = { top: 36, right: 16, bottom: 40, left: 64 } as const;
const PLOT_HEIGHT = 240;
/** px; the plot grows with its bars up to MAX_PLOT_WIDTH, where the SVG still fits a desktop window. */
const MIN_PLOT_WIDTH = 480;
const MAX_PLOT_WIDTH = 1100;
/** px of axis per period label, so that day labels never overlap. */
const LABEL_SPACING = 80;

export function barChartSvg(points: readonly BarPoint[], options: BarChartOptions): string {
  const { periods } = options;
  const series = seriesOf(points);
  const plotWidth = Math.min(
    MAX_PLOT_WIDTH,
    Math.max(MIN_PLOT_WIDTH, periods.length * (series.length * 14 + 8)),
  );
  const width = MARGIN.left + plotWidth + MARGIN.right;
  const height = MARGIN.top + PLOT_HEIGHT + MARGIN.bottom;
  const open = `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeHtml(options.label)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`;
  if (points.length === 0 || points.every((p) => p.value === 0)) {
    return `${open}<text x="${width / 2}" y="${height / 2}" text-anchor="middle">No data in this range</text></svg>`;
  }
  const top = niceCeiling(points.reduce((most, p) => Math.max(most, p.value), Number.NEGATIVE_INFINITY));
  const y = (value: number) => MARGIN.top + PLOT_HEIGHT - (value / top) * PLOT_HEIGHT;
  const group = plotWidth / periods.length;
  const bar = Math.max(1, (group * 0.8) / series.length);
  const parts = [open, ...axis(top, y, plotWidth, options.unit)];
  const byKey = new Map(points.map((p) => [`${p.period}\u0000${p.series}`, p]));
  periods.forEach((period, i) => {
    const left = MARGIN.left + i * group + group * 0.1;
    series.forEach((name, s) => {
      const point = byKey.get(`${period}\u0000${name}`);
      if (point === undefined || point.value === 0) return;
      const yTop = y(point.value);
      const fill = PALETTE[s % PALETTE.length];
      parts.push(
        `<rect class="bar" x="${fixed(left + s * bar)}" y="${fixed(yTop)}" width="${fixed(bar)}" height="${fixed(MARGIN.top + PLOT_HEIGHT - yTop)}" fill="${fill}"><title>${escapeHtml(`${period} ${name}: ${point.label} ${options.unit}`)}</title></rect>`,
      );
    });
  });
  return [...parts, ...periodLabels(periods, group), '</svg>'].join('\n');
}

function axis(top: number, y: (value: number) => number, plotWidth: number, unit: string): string[] {
  const parts: string[] = [];
  const ticks = 5;
  for (let t = 0; t <= ticks; t++) {
    const value = (top * t) / ticks;
    const yy = fixed(y(value));
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${yy}" y2="${yy}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 6}" y="${yy}" text-anchor="end" dominant-baseline="middle">${formatTick(value)}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left}" y="${MARGIN.top - 20}" text-anchor="start">${escapeHtml(unit)}</text>`,
  );
  return parts;
}

/** Every period's label that fits, LABEL_SPACING px apart at least. */
function periodLabels(periods: readonly string[], group: number): string[] {
  const every = Math.max(1, Math.ceil(LABEL_SPACING / group));
  const baseline = MARGIN.top + PLOT_HEIGHT + 16;
  return periods.flatMap((period, i) =>
    i % every === 0
      ? [
          `<text x="${fixed(MARGIN.left + (i + 0.5) * group)}" y="${baseline}" text-anchor="middle">${escapeHtml(period)}</text>`,
        ]
      : [],
  );
}

/** The legend as an HTML list, one swatch per series in the bars' colours. */
export function chartLegend(points: readonly BarPoint[]): string {
  const items = seriesOf(points).map(
    (name, s) =>
      `<li><span style="background:${PALETTE[s % PALETTE.length]}"></span>${escapeHtml(name)}</li>`,
  );
  return `<ul class="legend" id="legend">\n${items.join('\n')}\n</ul>`;
}

/**
 * `points` with at most MAX_SERIES series, in the caller's order: past it, the series outside the
 * MAX_SERIES - 1 largest (ties: the earlier) become one series, `other (N smaller)`, last, whose
 * value in a period is their sum there (its label their labels' exact sum).
 */
export function limitSeries(points: readonly BarPoint[]): BarPoint[] {
  const series = seriesOf(points);
  if (series.length <= MAX_SERIES) return [...points];
  const sizes = new Map(series.map((name) => [name, 0]));
  for (const p of points) sizes.set(p.series, (sizes.get(p.series) ?? 0) + p.value);
  const kept = new Set(
    [...series].sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0)).slice(0, MAX_SERIES - 1),
  );
  const other = `other (${series.length - kept.size} smaller)`;
  const rest = new Map<string, BarPoint[]>();
  for (const p of points) if (!kept.has(p.series)) rest.set(p.period, [...(rest.get(p.period) ?? []), p]);
  const summed = [...rest].map(([period, parts]) => ({
    period,
    series: other,
    value: parts.reduce((sum, p) => sum + p.value, 0),
    label: trimmedDecimal(sumExact(parts.map((p) => new ExactNumber(p.label)))),
  }));
  return [...points.filter((p) => kept.has(p.series)), ...summed];
}

/** Series in the order they first appear (the report's group order). */
function seriesOf(points: readonly BarPoint[]): string[] {
  return [...new Set(points.map((p) => p.series))];
}

/** The smallest of 1, 2, 2.5 or 5 times a power of ten that is >= value (1 for 0). */
function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
}

function fixed(n: number): string {
  return n.toFixed(1);
}
