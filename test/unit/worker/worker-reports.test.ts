/**
 * The worker's billing reports, the worker in this process against the simulator, real Redis and a
 * real DuckDB file: the scheduled report after the syncs, missed periods caught up, a late
 * completion rewriting its day. The rest of the worker is worker.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { command as enqueue } from '../../../src/cli/commands/enqueue.js';
import { JOB_KINDS } from '../../../src/kinds.js';
import { createSyncQueue, REPORT_JOB } from '../../../src/worker/queue.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { redisUrl } from '../../helpers/redis.js';
import { eventually } from '../../helpers/worker.js';
import {
  collect,
  NO_REPORT_RUN,
  options,
  REPORT_AT_START,
  reportingWithin,
  setup,
  start,
  succeeded,
} from '../../helpers/worker-in-process.js';

describe('worker billing reports', () => {
  it("the scheduled billing report writes last month's and yesterday's CSV and HTML after the syncs", async () => {
    // A job about every two days over 80 days: last month (relative to now) holds a dozen, most billed.
    const { sim, prefix, db } = await setup({
      preRecorded: 20,
      live: 16,
      utterancesPerJob: 2,
      wordsPerUtterance: 2,
      from: new Date(Date.now() - 80 * 86_400_000),
      to: new Date(),
    });
    // The shortest window: the last complete day and month are written whatever the window.
    const running = await start(
      reportingWithin('1d', options(sim, db, prefix, { reportEvery: REPORT_AT_START })),
    );
    const reports = join(dirname(db), 'reports');
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
      .toISOString()
      .slice(0, 7);
    const yesterday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1))
      .toISOString()
      .slice(0, 10);
    // Named after the database (transcripts.duckdb), so reports of several databases can share a folder.
    const monthCsv = join(reports, `billing-transcripts-month-${lastMonth}-all.csv`);
    const expected = [
      `billing-transcripts-month-${lastMonth}-all.html`,
      `billing-transcripts-day-${yesterday}-all.csv`,
      `billing-transcripts-day-${yesterday}-all.html`,
    ];
    // The job writes its files one after the other: wait for all of them, not the first.
    await eventually(
      () =>
        [monthCsv, ...expected.map((name) => join(reports, name))].every((f) => existsSync(f)) || undefined,
      'the billing reports',
    );
    for (const name of expected) expect(existsSync(join(reports, name)), name).toBe(true);
    const billed = sim.data
      .all()
      .filter((r) => r['status'] === 'done' && String(r['created_at']).startsWith(lastMonth)).length;
    expect(billed).toBeGreaterThan(0);
    const lines = readFileSync(monthCsv, 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/^# as of \d{4}-/);
    const [header, ...rows] = lines.filter((line) => !line.startsWith('#') && !line.startsWith('total,'));
    expect(header).toContain('billed_hours');
    const jobsColumn = header!.split(',').indexOf('jobs');
    expect(rows.reduce((n, row) => n + Number(row.split(',')[jobsColumn]), 0)).toBe(billed);
    await running.stop();
  });

  it('report runs write the periods missed while no report ran, and a late completion rewrites its day', async () => {
    const { sim, prefix, db } = await setup({
      preRecorded: 8,
      live: 8,
      utterancesPerJob: 2,
      wordsPerUtterance: 2,
      from: new Date(Date.now() - 40 * 86_400_000),
      to: new Date(),
    });
    const now = new Date();
    const dayOf = (daysAgo: number) =>
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysAgo))
        .toISOString()
        .slice(0, 10);
    // A live job of yesterday already billed, so that day's file has a live row to count up from.
    sim.data.add({ kind: 'live', status: 'done', createdAt: new Date(`${dayOf(1)}T06:00:00.000Z`) });
    // A job of yesterday still processing when the first report is written.
    const late = sim.data.add({
      kind: 'live',
      status: 'processing',
      createdAt: new Date(`${dayOf(1)}T12:00:00.000Z`),
    });
    // The report schedule fires once a year: this test runs the report job itself.
    // Each report run rewrites what changed in the eight days before it: day 6 is inside the window
    // of every run.
    const running = await start(
      reportingWithin('8d', options(sim, db, prefix, { reportEvery: NO_REPORT_RUN })),
    );
    await eventually(succeeded(running, JOB_KINDS), 'a successful run of each kind');
    const queue = createSyncQueue(redisUrl(), prefix);
    onCleanup(() => queue.close());
    const reportRun = async (payload: { now?: string }) => {
      const job = await queue.add(REPORT_JOB, payload);
      return eventually(async () => {
        // State first, then the job: a job read before its completion carries no return value yet.
        if ((await queue.getJobState(String(job.id))) !== 'completed') return undefined;
        return (await queue.getJob(String(job.id)))?.returnvalue as { written: string[] };
      }, 'the billing report job');
    };
    const dayFile = (daysAgo: number) =>
      join(dirname(db), 'reports', `billing-transcripts-day-${dayOf(daysAgo)}-all.csv`);

    // The last report ran five days ago; the days since were missed.
    await reportRun({ now: new Date(`${dayOf(5)}T06:00:00.000Z`).toISOString() });
    expect(existsSync(dayFile(6))).toBe(true);
    for (const daysAgo of [1, 2, 3, 4, 5]) expect(existsSync(dayFile(daysAgo))).toBe(false);
    const caughtUp = await reportRun({});
    for (const daysAgo of [1, 2, 3, 4, 5]) {
      expect(caughtUp.written).toContain(dayFile(daysAgo));
      expect(existsSync(dayFile(daysAgo))).toBe(true);
    }
    expect(caughtUp.written).not.toContain(dayFile(6));
    const jobsOf = (path: string) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .find((line) => line.startsWith(`${dayOf(1)},live,`))
        ?.split(',')[2];
    const before = Number(jobsOf(dayFile(1)));
    expect(readFileSync(dayFile(1), 'utf8')).toMatch(/^# not counted: 0 quarantined .*, [1-9]\d* pending/m);

    // The job completes late; the next sync picks it up, and the next report rewrites that day only.
    sim.data.advance(late['id'] as string, 'done');
    const out = collect();
    const flags = { kind: 'live', wait: true, json: true, 'redis-url': redisUrl(), 'redis-prefix': prefix };
    expect(
      await enqueue.run({ flags, positionals: [], stdout: out.stream, stderr: out.stream, env: {} }),
    ).toBe(0);
    const afterLate = await reportRun({});
    expect(afterLate.written).toContain(dayFile(1));
    expect(afterLate.written.filter((path) => path.includes('-day-'))).toEqual(
      afterLate.written.filter((path) => path.includes(`-day-${dayOf(1)}-`)),
    );
    expect(Number(jobsOf(dayFile(1)))).toBe(before + 1);
    await running.stop();
  });
});
