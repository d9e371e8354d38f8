/**
 * The bench's printout: every figure on its own line, each target with whether this run met it,
 * then the same as Markdown tables for BENCHMARKS.md (the account shapes and the scale phase side
 * by side in tables of their own).
 */
import { DEFAULT_MEMORY } from '../src/memory/budget.js';
import type { Figures } from './figures.js';
import { floorSearchRows, floorSearchTable, floorSearchTargets } from './report-floor-search.js';
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
import { incrementalRows, incrementalTargets } from './report-incremental.js';
import { scaleRows, scaleTable, scaleTargets } from './report-scale.js';
import { shapeRows, shapeTable, shapeTargets } from './report-shapes.js';

export interface Ratios {
  /** naive / backfill of the first shape; target >= 10. */
  readonly naiveOverBackfill?: number;
  /** 1-way time / 4-way time of the latency-bound backfill; target >= 3. */
  readonly speedup4Over1?: number;
}

export function ratios(f: Figures): Ratios {
  const backfill = f.shapes?.[0]?.backfill;
  const one = f.latency?.runs.find((r) => r.concurrency === 1);
  const four = f.latency?.runs.find((r) => r.concurrency === 4);
  return {
    ...(backfill && f.naive ? { naiveOverBackfill: f.naive.extrapolatedMs / backfill.wallMs } : {}),
    ...(one && four ? { speedup4Over1: one.wallMs / four.wallMs } : {}),
  };
}

/** The memory budget the syncs ran with, bytes. */
function budgetOf(f: Figures): number {
  const memory = f.options['memory'];
  return typeof memory === 'number' ? memory : DEFAULT_MEMORY;
}

/** [label, value] rows, in print order; a phase not run prints no rows. */
export function figureRows(f: Figures): Row[] {
  const rows: Row[] = [];
  for (const shape of f.shapes ?? []) rows.push(...shapeRows(shape));
  if (f.naive) {
    const n = f.naive;
    rows.push([
      'naive loader',
      `${seconds(n.extrapolatedMs)} extrapolated from ${n.subsetJobs} jobs in ${seconds(n.subsetMs)}`,
    ]);
    rows.push(['naive words/s', perSecond(n.wordsPerSecond)]);
  }
  if (f.idle) {
    const i = f.idle;
    const requests = Object.entries(i.requests).map(
      ([kind, n]) => `${kind} ${n} (${i.pendingRechecked[kind] ?? 0} pending)`,
    );
    rows.push(['idle run wall time', `${i.wallMs.toFixed(0)} ms, ${i.changed} jobs changed`]);
    rows.push(['idle run requests', requests.join(', ')]);
  }
  if (f.memory) {
    const m = f.memory;
    rows.push(['peak RSS 1x', mib(m.rss1xMb)]);
    rows.push([
      'peak RSS 10x jobs',
      `${mib(m.rss10xMb)} (${m.jobs10x} jobs, ${m.words10x} words, ${seconds(m.wall10xMs)})`,
    ]);
  }
  for (const run of f.latency?.runs ?? []) {
    rows.push([
      `latency-bound ${run.concurrency}-way`,
      `${seconds(run.wallMs)} (${run.requests} requests, peak ${run.peakInFlight} in flight, peak ${run.peakPerSecond}/s)`,
    ]);
  }
  for (const run of f.budget?.runs ?? []) {
    rows.push([
      `${run.records} records, ${run.budgetMb} MB budget, ${run.step}`,
      `peak RSS ${mib(run.peakRssMb)}${run.rounds > 1 ? ` (median of ${run.rounds}, worst ${mib(run.worstRssMb)})` : ''}, ` +
        `V8 heap ${mib(run.peakHeapMb)}, ${seconds(run.wallMs)}, ` +
        `CPU ${seconds(run.cpuMs)}${run.words > 0 ? `, ${microsPerWord(run.cpuMs, run.words)}` : ''}`,
    ]);
  }
  for (const run of f.incremental?.runs ?? []) rows.push(...incrementalRows(run));
  if (f.scale) rows.push(...scaleRows(f.scale));
  if (f.floorSearch) rows.push(...floorSearchRows(f.floorSearch));
  const r = ratios(f);
  if (r.naiveOverBackfill !== undefined) rows.push(['ratio naive / backfill', times(r.naiveOverBackfill)]);
  if (r.speedup4Over1 !== undefined) rows.push(['ratio 4-way / 1-way (speed-up)', times(r.speedup4Over1)]);
  return rows;
}

export function targets(f: Figures): Target[] {
  const r = ratios(f);
  const budget = budgetOf(f);
  const out: Target[] = [];
  for (const shape of f.shapes ?? []) out.push(...shapeTargets(shape, budget));
  if (r.naiveOverBackfill !== undefined) {
    out.push({
      name: 'naive vs backfill',
      goal: '>= 10x slower',
      value: times(r.naiveOverBackfill),
      met: r.naiveOverBackfill >= 10,
    });
  }
  if (f.idle) {
    const extra = Object.entries(f.idle.requests).map(
      ([kind, n]) => n - 1 - (f.idle?.pendingRechecked[kind] ?? 0),
    );
    const fewRequests = extra.every((n) => n <= 0);
    out.push({
      name: 'idle run',
      goal: '1 request per kind + re-checks, < 1 s',
      value: `${f.idle.wallMs.toFixed(0)} ms`,
      met: fewRequests && f.idle.wallMs < 1_000 && f.idle.changed === 0,
    });
  }
  if (f.memory) {
    out.push({
      name: 'RSS at 10x jobs',
      goal: 'within 20%',
      value: times(f.memory.ratio),
      met: f.memory.ratio <= 1.2,
    });
  }
  for (const records of new Set(f.budget?.runs.map((run) => run.records))) {
    const runs =
      f.budget?.runs.filter((run) => run.records === records && run.budgetMb * 1e6 === DEFAULT_MEMORY) ?? [];
    if (runs.length === 0) continue;
    // The median of the rounds when there are several.
    const worst = Math.max(...runs.map((run) => run.peakRssMb));
    out.push({
      name: `peak RSS at the default budget, ${records} records`,
      goal: `${bound(DEFAULT_MEMORY, budgetName(DEFAULT_MEMORY))} in every step`,
      value: mib(worst),
      met: worst * 2 ** 20 <= DEFAULT_MEMORY,
    });
  }
  if (f.latency && r.speedup4Over1 !== undefined) {
    const l = f.latency;
    // The engine's limiter is a token bucket of `concurrency` tokens: at most rate + concurrency a second.
    const capped = l.runs.every(
      (run) => run.peakInFlight <= run.concurrency && run.peakPerSecond <= l.rateLimit + run.concurrency,
    );
    out.push({
      name: '4-way vs 1-way, caps respected',
      goal: '>= 3x',
      value: `${times(r.speedup4Over1)}${capped ? '' : ' (a cap was exceeded)'}`,
      met: r.speedup4Over1 >= 3 && capped,
    });
  }
  out.push(...incrementalTargets(f));
  if (f.scale) out.push(...scaleTargets(f.scale));
  if (f.floorSearch) out.push(...floorSearchTargets(f.floorSearch));
  return out;
}

export function renderReport(f: Figures): string {
  const rows = figureRows(f);
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = ['', 'Figures', ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)];
  const goals = targets(f);
  if (goals.length > 0) {
    const w = Math.max(...goals.map((t) => t.name.length));
    lines.push('', 'Targets');
    for (const t of goals)
      lines.push(`  ${t.met ? 'met ' : 'MISS'}  ${t.name.padEnd(w)}  ${t.value} (goal ${t.goal})`);
  }
  if (f.shapes && f.shapes.length > 0) lines.push('', ...shapeTable(f.shapes));
  if (f.scale) lines.push('', ...scaleTable(f.scale));
  if (f.floorSearch) lines.push('', ...floorSearchTable(f.floorSearch));
  lines.push('', ...markdown(['figure', 'value'], rows), '');
  return lines.join('\n');
}
