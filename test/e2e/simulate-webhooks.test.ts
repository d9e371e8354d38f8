/** `simulate --webhook-url` as the built program runs it: the flag reaches the simulator's sender. */
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { webhookReceiver } from '../helpers/webhook-receiver.js';
import { eventually } from '../helpers/worker.js';

describe('simulate --webhook-url', () => {
  it("posts the service's events of a growing account to the URL", async () => {
    const { url, received } = await webhookReceiver();
    const cli = startCli(
      ['simulate', '--port', '0', '--jobs', '4', '--end', 'now', '--grow', '1200/m', '--webhook-url', url],
      {},
    );
    try {
      await cli.output(/TSYNC_API_KEY=/);
      await eventually(
        () => received.some((r) => r.event === 'transcription.created' || r.event === 'live.start_session'),
        'an event of a new job',
      );
      for (const r of received) {
        expect(Object.keys(r).sort()).toEqual(['event', 'payload']);
        expect(r.payload.id).toMatch(/^[0-9a-f-]{36}$/);
      }
    } finally {
      cli.child.kill('SIGTERM');
      await cli.done;
    }
  });
});
