/**
 * The simulator posts the service's account webhooks as a growing account's clock runs: one event
 * per job created and per job ended, in the service's words and shape, to a real HTTP receiver.
 */
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../src/simulator/index.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { webhookReceiver as receiver } from '../../helpers/webhook-receiver.js';
import { eventually } from '../../helpers/worker.js';

describe('the simulator with a webhook URL', () => {
  it('posts {event, payload: {id}} as each job arrives and as it ends, named as the service names them', async () => {
    const { url, received } = await receiver();
    const sim = await startSimulator({
      preRecorded: 2,
      live: 2,
      utterancesPerJob: 1,
      wordsPerUtterance: 2,
      grow: { jobsPerMinute: 1_200, settleMs: 300, deleteShare: 0 },
      webhookUrl: url,
    });
    onCleanup(() => sim.close());
    const ended = (prefix: string) =>
      received.some((r) => r.event.startsWith(prefix) && !/created|start_session/.test(r.event));
    await eventually(() => ended('transcription.') && ended('live.'), 'an end of each kind');
    expect(sim.webhooks?.failed()).toBe(0);
    await sim.close();

    const known = [
      'transcription.created',
      'transcription.success',
      'transcription.error',
      'live.start_session',
      'live.end_session',
    ];
    expect(received.filter((r) => !known.includes(r.event))).toEqual([]);
    for (const r of received) expect(Object.keys(r).sort()).toEqual(['event', 'payload']);
    // Each job that ended was announced when it arrived, with the id the list serves.
    const listed = new Map(sim.data.all().map((job) => [String(job['id']), job]));
    for (const r of received.filter((e) => /success|error|end_session/.test(e.event))) {
      const job = listed.get(r.payload.id);
      expect(job?.['status'], r.event).toMatch(/^(done|error)$/);
      const opened = job?.['kind'] === 'live' ? 'live.start_session' : 'transcription.created';
      expect(received.some((e) => e.event === opened && e.payload.id === r.payload.id)).toBe(true);
    }
  });
});
