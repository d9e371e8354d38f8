/** The worker in process when Redis freezes for longer than the job lock and comes back with its data. */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { startOwnRedis } from '../../helpers/redis-server.js';
import { eventually } from '../../helpers/worker.js';
import { collect, options, setup, start } from '../../helpers/worker-in-process.js';

/** The JSON lines logged so far. */
const parsed = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('worker whose job lock ran out during a Redis freeze', () => {
  it('says so in one warn line, without an error, and runs the job again to completion', async () => {
    const own = await startOwnRedis();
    const { sim, prefix, db } = await setup({ preRecorded: 0, live: 60, latencyMs: 200 });
    const log = collect();
    const base = options(sim, db, prefix, { kinds: ['live'], logger: createLogger('info', {}, log) });
    await start({ ...base, jobLockMs: 2_000, settings: { ...base.settings, redisUrl: own.url } });
    await eventually(
      () => (log.text().includes('"msg":"job started"') ? true : undefined),
      'the run started',
    );

    await own.freeze(3_000);

    await eventually(
      () => (log.text().includes('"msg":"job completed"') ? true : undefined),
      'the job completed',
    );
    const lines = parsed(log.text());
    const messages = lines.map((l) => String(l['msg']));
    expect(lines.filter((l) => Number(l['level']) >= 50).map((l) => l['msg'])).toEqual([]);
    expect(messages.filter((m) => m.startsWith('the job lock ran out'))).toHaveLength(1);
    // Its second run resumed from the checkpoint the first one left.
    expect(messages.filter((m) => m === 'job started')).toHaveLength(2);
  });
});
