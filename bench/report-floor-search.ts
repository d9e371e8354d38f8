/**
 * The floor search in the report: every setting tried on each shape, the fastest that held the
 * budget (to be written into `floorBounds` in bench/datasets.ts), as rows, targets and one
 * Markdown table.
 */
import type { FloorSearchFigures, FloorTrial } from './figures.js';
import { floorABoundsText } from './floor-a-sql.js';
import { floorTrialText } from './floor-search.js';
import { markdown, mib, type Row, seconds, type Target } from './report-format.js';

/** Where none held: the setting stopped at the lowest peak, the nearest to holding. */
function nearestText(trials: readonly FloorTrial[]): string {
  const over = trials.filter((t) => t.outcome === 'over budget');
  const nearest = over.reduce<FloorTrial | undefined>(
    (a, t) => (a === undefined || (t.peakRssMb ?? 0) < (a.peakRssMb ?? 0) ? t : a),
    undefined,
  );
  return nearest ? `; nearest: ${floorTrialText(nearest)}` : '';
}

export function floorSearchRows(f: FloorSearchFigures): Row[] {
  const rows: Row[] = [];
  for (const s of f.shapes) {
    s.trials.forEach((trial, i) => {
      rows.push([`floor search ${s.name} ${i + 1}`, floorTrialText(trial)]);
    });
    const best = s.best;
    rows.push([
      `floor search ${s.name}: fastest held`,
      best
        ? `${floorABoundsText(best)}; floorBounds: { memoryLimitMb: ${best.memoryLimitMb}, threads: ${best.threads}, batchJobs: ${best.batchJobs} }`
        : `none of ${s.trials.length} settings held ${mib(s.budgetMb)}${nearestText(s.trials)}`,
    ]);
  }
  return rows;
}

export function floorSearchTargets(f: FloorSearchFigures): Target[] {
  return f.shapes.map((s) => ({
    name: `${s.name}: floor A bounded holds the budget`,
    goal: `a setting within ${mib(s.budgetMb)}`,
    value: s.best ? floorABoundsText(s.best) : 'none held',
    met: s.best !== undefined,
  }));
}

/** Every setting tried, shape by shape; the fastest that held in bold. */
export function floorSearchTable(f: FloorSearchFigures): string[] {
  return markdown(
    ['shape', 'threads', 'memory_limit', 'jobs a transaction', 'wall', 'peak RSS', 'outcome'],
    f.shapes.flatMap((s) =>
      s.trials.map((t) => {
        const best = t.bounds === s.best;
        const cell = (text: string) => (best ? `**${text}**` : text);
        return [
          `${s.name} (${s.jobs} jobs)`,
          String(t.bounds.threads),
          `${t.bounds.memoryLimitMb} MB`,
          String(t.bounds.batchJobs),
          t.wallMs === undefined ? '' : cell(seconds(t.wallMs)),
          t.peakRssMb === undefined ? '' : `${t.outcome === 'over budget' ? '> ' : ''}${mib(t.peakRssMb)}`,
          best ? '**fastest held**' : t.outcome,
        ];
      }),
    ),
  );
}
