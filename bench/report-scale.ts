/**
 * The scale phase in the report: every command at every size, as rows, as targets, and as one
 * Markdown table with the sizes of each step side by side. Targets judge this checkout's commands
 * only; the baseline's are shown beside them.
 */
import type { CliStep, ScaleFigures, ScaleRun } from './figures.js';
import {
  bound,
  budgetName,
  markdown,
  megabytes,
  mib,
  type Row,
  seconds,
  type Target,
  times,
} from './report-format.js';

/** Bounds of the targets. */
export const SCALE_GOALS = {
  /** Back-fill time a job at the largest size over that at the smallest. */
  backfillPerJobGrowth: 1.2,
  idleMs: 1_000,
  /** Bytes a back-fill writes over the bytes it added to the file. */
  backfillWriteShare: 1.5,
  newJobWriteBytes: 16e6,
} as const;

const step = (steps: readonly CliStep[], name: string) => steps.find((s) => s.name === name);

function stepLine(s: CliStep): string {
  const rss = s.peakRssMb === undefined ? 'peak RSS unknown' : `peak RSS ${mib(s.peakRssMb)}`;
  const heap = s.peakHeapMb === undefined ? '' : ` (V8 heap ${mib(s.peakHeapMb)})`;
  const cpu = s.cpuMs === undefined ? '' : `, CPU ${seconds(s.cpuMs)}`;
  const written = s.writeBytes === undefined ? '' : `, ${megabytes(s.writeBytes)} written`;
  const output = s.outputBytes === undefined ? '' : ` (${megabytes(s.outputBytes)} of output files)`;
  const words = s.words ? ` (${s.words} words)` : '';
  const changed = s.changed === undefined ? '' : `, ${s.changed} jobs changed${words}`;
  const failed = s.exit === 0 ? '' : `; FAILED (exit ${s.exit}: ${s.error ?? 'no message'})`;
  return (
    `${seconds(s.wallMs)}, ${rss}${heap}${cpu}${written}${output}, file ${megabytes(s.fileBytes)}${changed}, ` +
    `simulator ${seconds(s.simCpuMs)}${failed}`
  );
}

export function scaleRows(f: ScaleFigures): Row[] {
  const rows: Row[] = [];
  for (const run of f.runs) {
    for (const s of run.steps) rows.push([`scale ${run.jobs}: ${s.name}`, stepLine(s)]);
    for (const s of run.baseline ?? []) rows.push([`scale ${run.jobs} (baseline): ${s.name}`, stepLine(s)]);
  }
  return rows;
}

/** Back-fill wall time a job, ms. */
function backfillPerJobMs(run: ScaleRun): number | undefined {
  const backfill = step(run.steps, 'back-fill');
  return backfill ? backfill.wallMs / run.jobs : undefined;
}

/** The step with the highest `value` over every size, and that value. */
function worst(
  f: ScaleFigures,
  names: readonly string[] | undefined,
  value: (s: CliStep) => number | undefined,
): { at: string; value: number } | undefined {
  let found: { at: string; value: number } | undefined;
  for (const run of f.runs) {
    for (const s of run.steps) {
      if (names && !names.includes(s.name)) continue;
      const v = value(s);
      if (v !== undefined && (!found || v > found.value))
        found = { at: `${s.name} at ${run.jobs}`, value: v };
    }
  }
  return found;
}

export function scaleTargets(f: ScaleFigures): Target[] {
  const out: Target[] = [];
  const failed = f.runs.flatMap((run) =>
    run.steps.filter((s) => s.exit !== 0).map((s) => `${s.name} at ${run.jobs}`),
  );
  out.push({
    name: 'scale: every command succeeded',
    goal: 'exit 0',
    value: failed.length === 0 ? 'all' : `failed: ${failed.join(', ')}`,
    met: failed.length === 0,
  });
  const first = f.runs[0];
  const last = f.runs.at(-1);
  const small = first && backfillPerJobMs(first);
  const large = last && backfillPerJobMs(last);
  if (first && last && first !== last && small !== undefined && large !== undefined) {
    out.push({
      name: 'scale: back-fill time a job, largest vs smallest',
      goal: `<= ${times(SCALE_GOALS.backfillPerJobGrowth)}`,
      value: `${times(large / small)} (${(small * 1_000).toFixed(0)} µs a job at ${first.jobs}, ${(large * 1_000).toFixed(0)} at ${last.jobs})`,
      met: large / small <= SCALE_GOALS.backfillPerJobGrowth,
    });
  }
  // A step that died before it could tell its peak counts as over the budget.
  const rss = worst(f, undefined, (s) => s.peakRssMb ?? Number.POSITIVE_INFINITY);
  if (rss)
    out.push({
      name: 'scale: peak RSS of every step',
      goal: bound(f.budgetBytes, budgetName(f.budgetBytes)),
      value: `${mib(rss.value)} (${rss.at})`,
      met: rss.value * 2 ** 20 <= f.budgetBytes,
    });
  const idle = worst(f, ['idle incremental'], (s) => s.wallMs);
  if (idle)
    out.push({
      name: 'scale: idle incremental',
      goal: `<= ${seconds(SCALE_GOALS.idleMs)} at every size`,
      value: `${seconds(idle.value)} (${idle.at})`,
      met: idle.value <= SCALE_GOALS.idleMs,
    });
  const share = worst(f, ['back-fill'], (s) =>
    s.writeBytes === undefined ? Number.POSITIVE_INFINITY : s.writeBytes / Math.max(1, s.fileBytes),
  );
  if (share)
    out.push({
      name: 'scale: back-fill bytes written',
      goal: `<= ${times(SCALE_GOALS.backfillWriteShare)} what it added to the file`,
      value: `${times(share.value)} (${share.at})`,
      met: share.value <= SCALE_GOALS.backfillWriteShare,
    });
  const newJob = worst(f, ['one new job'], (s) => s.writeBytes ?? Number.POSITIVE_INFINITY);
  if (newJob)
    out.push({
      name: 'scale: one new job writes',
      goal: `<= ${megabytes(SCALE_GOALS.newJobWriteBytes)} at every size`,
      value: `${megabytes(newJob.value)} (${newJob.at})`,
      met: newJob.value <= SCALE_GOALS.newJobWriteBytes,
    });
  return out;
}

/** Each step with every size (and the baseline's) one row after the other. */
export function scaleTable(f: ScaleFigures): string[] {
  const rows: string[][] = [];
  const names = [...new Set(f.runs.flatMap((run) => run.steps.map((s) => s.name)))];
  for (const name of names) {
    for (const run of f.runs) {
      const variants: [string, readonly CliStep[] | undefined][] = [
        ['', run.steps],
        [' (baseline)', run.baseline],
      ];
      for (const [label, steps] of variants) {
        const s = steps && step(steps, name);
        if (!s) continue;
        rows.push([
          name,
          `${run.jobs}${label}`,
          s.exit === 0 ? seconds(s.wallMs) : `FAILED (exit ${s.exit})`,
          s.peakRssMb === undefined ? '?' : mib(s.peakRssMb),
          s.peakHeapMb === undefined ? '?' : mib(s.peakHeapMb),
          s.writeBytes === undefined ? '?' : megabytes(s.writeBytes),
          megabytes(s.fileBytes),
        ]);
      }
    }
  }
  return markdown(['step', 'jobs', 'wall time', 'peak RSS', 'V8 heap', 'written', 'file after'], rows);
}
