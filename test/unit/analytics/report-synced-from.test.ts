/**
 * A mirror whose first sync started at `--since` holds no job created before it: a billing report
 * over earlier days must say so, not show them as days without jobs.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { command as report } from '../../../src/cli/commands/report.js';
import {
  craftJob,
  loadedDatabase,
  runCommand,
  smallDataset,
  writeSql,
} from '../../helpers/analytics-data.js';

const template = smallDataset(5, 10);
const records = ['2026-11-20T10:00:00.000Z', '2026-11-21T10:00:00.000Z'].map((createdAt, i) =>
  craftJob(template, { id: `since-${i}`, kind: 'live', createdAt, billingTime: 60 }),
);
const db = loadedDatabase('report-synced-from', records);

/** One ok run of a kind over [after, before): after NULL is a run with no lower bound. */
function recordRun(kind: string, after: string | null, before: string): Promise<void> {
  return writeSql(
    db,
    `INSERT INTO sync_runs (run_id, kind, mode, window_after, window_before, started_at, finished_at, outcome)
     VALUES ($run, $kind, 'incremental', $after::TIMESTAMPTZ, $before::TIMESTAMPTZ, $before::TIMESTAMPTZ, $before::TIMESTAMPTZ, 'ok')`,
    { run: `run-${kind}-${after}-${before}`, kind, after, before },
  );
}

beforeAll(async () => {
  // live: a first sync --since 2026-11-20, then an incremental run from its watermark;
  // pre-recorded: a first sync of the whole history.
  await recordRun('live', '2026-11-20T00:00:00.000Z', '2026-11-22T00:00:00.000Z');
  await recordRun('live', '2026-11-21T23:45:00.000Z', '2026-11-23T00:00:00.000Z');
  await recordRun('pre-recorded', null, '2026-11-23T00:00:00.000Z');
});

async function warnings(...args: string[]): Promise<string[]> {
  const outcome = await runCommand(report, ['billing', '--db', db, '--format', 'json', ...args]);
  expect(outcome.error?.message).toBeUndefined();
  return (JSON.parse(outcome.stdout) as { warnings: string[] }).warnings;
}

describe('a mirror first synced with --since', () => {
  test('a range that starts before the first sync says those jobs are not in the mirror', async () => {
    for (const args of [
      ['--from', '2026-11-10', '--to', '2026-11-22'],
      ['--to', '2026-11-22'],
      ['--kind', 'live', '--from', '2026-11'],
    ]) {
      const said = (await warnings('--by', 'day', ...args)).join('\n');
      expect(said, args.join(' ')).toContain(
        'live: synced from 2026-11-20T00:00:00.000Z only (its first sync started there)',
      );
      expect(said, args.join(' ')).toContain('`transcript-sync sync --since');
    }
  });

  test('a range inside what was synced, or of a kind synced whole, says nothing of it', async () => {
    for (const args of [
      ['--from', '2026-11-20', '--to', '2026-11-22'],
      ['--kind', 'pre-recorded', '--from', '2026-11-01', '--to', '2026-11-22'],
    ]) {
      expect((await warnings(...args)).join('\n'), args.join(' ')).not.toContain('synced from');
    }
  });
});
