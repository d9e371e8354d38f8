/** The incremental phase in the report: each history's steps as rows, and their targets. */
import type { Figures, IncrementalRun, IncrementalStep, IncrementalVariant } from './figures.js';
import { megabytes, type Row, seconds, type Target, times } from './report-format.js';

export function incrementalRows(run: IncrementalRun): Row[] {
  const rows = variantRows(`incremental H=${run.history}`, run, run.jsonBytes);
  if (run.baseline)
    rows.push(...variantRows(`incremental H=${run.history} (baseline)`, run.baseline, run.jsonBytes));
  return rows;
}

function variantRows(at: string, v: IncrementalVariant, jsonBytes: number): Row[] {
  const rows: Row[] = [
    [
      `${at}: file`,
      `${megabytes(v.fileBytes)} for ${megabytes(jsonBytes)} JSON (${(v.fileBytes / jsonBytes).toFixed(2)} per JSON byte); backfill ${seconds(v.backfillMs)}, ${megabytes(v.backfillWriteBytes)} written`,
    ],
  ];
  for (const s of v.steps) {
    rows.push([
      `${at}: ${s.name}`,
      `${megabytes(s.writeBytes)} written, ${seconds(s.wallMs)}, ${s.requests} requests, ${s.jobsFetched} jobs fetched, ${s.changed} changed, ${s.deleted} deleted`,
    ]);
  }
  return rows;
}

/** The "one new job" step of the smallest and the largest history. */
function oneNewJob(f: Figures): { small: IncrementalStep; large: IncrementalStep } | undefined {
  const runs = f.incremental?.runs ?? [];
  const pick = (run: IncrementalRun | undefined) => run?.steps.find((s) => s.name === 'one new job');
  const small = pick(runs[0]);
  const large = pick(runs.at(-1));
  return small && large && runs.length > 1 ? { small, large } : undefined;
}

export function incrementalTargets(f: Figures): Target[] {
  const out: Target[] = [];
  const one = oneNewJob(f);
  if (one) {
    const most = Math.max(one.small.writeBytes, one.large.writeBytes);
    out.push({
      name: 'one new job writes',
      goal: '<= 16 MB at every history',
      value: megabytes(most),
      met: most <= 16e6,
    });
    // Bytes, not time: wall time of a sub-second run is mostly noise on a shared machine.
    const growth = one.large.writeBytes / Math.max(1, one.small.writeBytes);
    out.push({
      name: 'one new job, larger history',
      goal: '<= 1.2x the bytes of the smaller',
      value: `${times(growth)} (time ${times(one.large.wallMs / one.small.wallMs)})`,
      met: growth <= 1.2,
    });
  }
  const last = f.incremental?.runs.at(-1);
  if (last) {
    const perByte = last.fileBytes / last.jsonBytes;
    out.push({ name: 'file per JSON byte', goal: '<= 1.0', value: perByte.toFixed(2), met: perByte <= 1 });
  }
  return out;
}
