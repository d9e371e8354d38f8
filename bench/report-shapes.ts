/**
 * The account shapes in the report: each shape's backfill against its floors, its memory and CPU,
 * as rows, as targets, and side by side in one Markdown table. The goal is a ratio to floor A
 * bounded (DuckDB's ingest held to the budget where it can be, docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md); the ratio to
 * floor A with DuckDB's defaults is printed beside it.
 */
import type { FloorAFigures, ShapeFigures } from './figures.js';
import { floorABoundsText } from './floor-a-sql.js';
import {
  bound,
  budgetName,
  markdown,
  mib,
  microsPerWord,
  perSecond,
  type Row,
  seconds,
  type Target,
  times,
} from './report-format.js';

/** The V8 heap's bound in a backfill, bytes: what the engine keeps in JavaScript stays small. */
export const HEAP_GOAL_BYTES = 100e6;

const runs = (ms: readonly number[]) =>
  ms.length > 1 ? ` (runs ${ms.map((m) => (m / 1_000).toFixed(2)).join(', ')})` : '';

/** backfill / max(floor A bounded, floor B), of the medians: the goal's ratio; undefined unless all ran. */
export function floorRatio(s: ShapeFigures): number | undefined {
  if (!s.backfill || !s.floorABounded || !s.floorB) return undefined;
  return s.backfill.wallMs / Math.max(s.floorABounded.wallMs, s.floorB.wallMs);
}

/** backfill / max(floor A with DuckDB's defaults, floor B), of the medians. */
export function unboundedRatio(s: ShapeFigures): number | undefined {
  if (!s.backfill || !s.floorA || !s.floorB) return undefined;
  return s.backfill.wallMs / Math.max(s.floorA.wallMs, s.floorB.wallMs);
}

const floorARow = (a: FloorAFigures): string =>
  `${seconds(a.wallMs)}${runs(a.runsMs)}, ${perSecond(a.wordsPerSecond)} words, peak RSS ${mib(a.peakRssMb)}, ` +
  `CPU ${seconds(a.cpuMs)}, ${a.transactions} ${a.transactions === 1 ? 'transaction' : 'transactions'}`;

const heapShare = (s: ShapeFigures) =>
  s.backfill ? `${((100 * s.backfill.peakHeapMb) / s.backfill.peakRssMb).toFixed(0)}%` : '';

export function shapeRows(s: ShapeFigures): Row[] {
  const at = (label: string): string => `${s.name}: ${label}`;
  const d = s.dataset;
  const rows: Row[] = [
    [
      at('dataset'),
      `${d.jobs} jobs (${s.about}), ${d.utterances} utterances, ${d.words} words ` +
        `(${(d.words / Math.max(1, d.jobs)).toFixed(0)} a job), ${(d.bytes / 1e6).toFixed(0)} MB JSON`,
    ],
  ];
  const b = s.backfill;
  if (b) {
    rows.push([
      at('backfill wall time'),
      `${seconds(b.wallMs)}${runs(b.runsMs)}, ${perSecond(b.wordsPerSecond)} words`,
    ]);
    rows.push([
      at('backfill peak RSS'),
      `${mib(b.peakRssMb)}, V8 heap ${mib(b.peakHeapMb)} (${heapShare(s)})`,
    ]);
    rows.push([
      at('backfill CPU time'),
      `${seconds(b.cpuMs)}, ${microsPerWord(b.cpuMs, b.words)} (${b.requests} requests, ${b.pages} pages); ` +
        `simulator ${seconds(b.simCpuMs)}`,
    ]);
  }
  if (s.floorA) rows.push([at('floor A (DuckDB ingest)'), floorARow(s.floorA)]);
  if (s.floorABounded) {
    rows.push([at('floor A bounded'), `${floorARow(s.floorABounded)} (${floorABoundsText(s.floorBounds)})`]);
  }
  if (s.floorB) {
    const f = s.floorB;
    rows.push([
      at('floor B (transfer)'),
      `${seconds(f.wallMs)}${runs(f.runsMs)}, ${f.megabytesPerSecond.toFixed(0)} MB/s, ${f.pages} pages, ` +
        `peak RSS ${mib(f.peakRssMb)} (V8 heap ${mib(f.peakHeapMb)}), CPU ${seconds(f.cpuMs)}; ` +
        `simulator ${seconds(f.simCpuMs)}`,
    ]);
  }
  const unbounded = unboundedRatio(s);
  if (unbounded !== undefined) rows.push([at('ratio backfill / max(floor A, floor B)'), times(unbounded)]);
  const ratio = floorRatio(s);
  if (ratio !== undefined) {
    const each =
      s.roundRatios && s.roundRatios.length > 1 ? ` (rounds ${s.roundRatios.map(times).join(', ')})` : '';
    rows.push([at('ratio backfill / max(floor A bounded, floor B)'), `${times(ratio)}${each}`]);
  }
  return rows;
}

export function shapeTargets(s: ShapeFigures, budgetBytes: number): Target[] {
  const out: Target[] = [];
  const ratio = floorRatio(s);
  if (ratio !== undefined)
    out.push({
      name: `${s.name}: backfill vs floors (A bounded)`,
      goal: `<= ${times(s.goal)}`,
      value: times(ratio),
      met: ratio <= s.goal,
    });
  const b = s.backfill;
  if (b) {
    out.push({
      name: `${s.name}: backfill peak RSS`,
      goal: bound(budgetBytes, budgetName(budgetBytes)),
      value: mib(b.peakRssMb),
      met: b.peakRssMb * 2 ** 20 <= budgetBytes,
    });
    out.push({
      name: `${s.name}: backfill V8 heap`,
      goal: bound(HEAP_GOAL_BYTES, '100 MB'),
      value: `${mib(b.peakHeapMb)} (${heapShare(s)} of the RSS)`,
      met: b.peakHeapMb * 2 ** 20 <= HEAP_GOAL_BYTES,
    });
  }
  return out;
}

/** The shapes side by side, one row each. */
export function shapeTable(shapes: readonly ShapeFigures[]): string[] {
  const cell = (ms: number | undefined) => (ms === undefined ? '' : seconds(ms));
  return markdown(
    [
      'account shape',
      'words a job',
      'sync',
      'DuckDB floor (A)',
      'A bounded',
      'fetch+parse floor (B)',
      'ratio to max(A, B)',
      'ratio to max(A bounded, B)',
      'peak RSS (V8 heap)',
      'CPU sync / A / A bounded / B',
      'CPU simulator',
    ],
    shapes.map((s) => {
      const ratio = floorRatio(s);
      const unbounded = unboundedRatio(s);
      const b = s.backfill;
      const a = s.floorABounded;
      return [
        `${s.name}: ${s.dataset.jobs} jobs, ${s.about}`,
        (s.dataset.words / Math.max(1, s.dataset.jobs)).toFixed(0),
        cell(b?.wallMs),
        s.floorA ? `${seconds(s.floorA.wallMs)} (${mib(s.floorA.peakRssMb)})` : '',
        a ? `${seconds(a.wallMs)} (${mib(a.peakRssMb)})` : '',
        cell(s.floorB?.wallMs),
        unbounded === undefined ? '' : times(unbounded),
        ratio === undefined ? '' : `**${times(ratio)}** (goal ${times(s.goal)})`,
        b ? `${mib(b.peakRssMb)} (${mib(b.peakHeapMb)}, ${heapShare(s)})` : '',
        [b?.cpuMs, s.floorA?.cpuMs, a?.cpuMs, s.floorB?.cpuMs].map(cell).join(' / '),
        cell(b?.simCpuMs),
      ];
    }),
  );
}
