import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ListingClient } from '../../../src/extract/index.js';
import { redactor, statusError } from '../../../src/extract/upstream-errors.js';
import type { FaultKind } from '../../../src/simulator/index.js';
import { apiFixtures } from '../../helpers/api.js';
import { freePort } from '../../helpers/net.js';

const KEY = 'tsk_live_SECRET_7f3c9a21d4';

const fixtures = apiFixtures();

/** A pino logger at trace level whose JSON lines are kept in `lines`. */
function capturingLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), lines };
}

/** Everything an operator could see of an error. */
function exposure(error: unknown): string {
  const fields = JSON.stringify(error, Object.getOwnPropertyNames(error ?? {}));
  return [String(error), inspect(error, { depth: 20, showHidden: true }), fields].join('\n');
}

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('the API key stays secret', () => {
  it('appears in no error, cause or log line, whatever fails', async () => {
    const sim = await fixtures.simulator({ apiKey: KEY, preRecorded: 4, live: 4 });
    sim.faults.retryAfter = '0';
    const { logger, lines } = capturingLogger();
    const client = new ListingClient({
      baseUrl: sim.url,
      apiKey: KEY,
      retryBaseMs: 1,
      maxAttempts: 2,
      logger,
    });
    fixtures.track(client);
    const errors: unknown[] = [];
    const faults: FaultKind[] = ['503', 'reset', 'truncate', 'bad-json', '429'];
    for (const fault of faults) {
      sim.faults.inject(fault, fault);
      errors.push(await failureOf(() => client.getPage('live')));
    }
    const refused = new ListingClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      apiKey: KEY,
      retryBaseMs: 1,
      maxAttempts: 2,
      logger,
    });
    fixtures.track(refused);
    errors.push(await failureOf(() => refused.getPage('live')));

    expect(errors.map((error) => (error as Error).name)).toEqual([
      'UpstreamError',
      'UpstreamError',
      'ProtocolError',
      'ProtocolError',
      'RateLimitedError',
      'UpstreamError',
    ]);
    for (const error of errors) expect(exposure(error)).not.toContain(KEY);
    // The logger did see the failures: retries are logged with the error.
    expect(lines.filter((line) => line.includes('retrying'))).toHaveLength(errors.length);
    expect(lines.join('')).not.toContain(KEY);
    expect(inspect(client, { depth: 20, showHidden: true })).not.toContain(KEY);
    expect(JSON.stringify(client)).not.toContain(KEY);
  });

  it('does not echo a refused key back', async () => {
    const sim = await fixtures.simulator({ preRecorded: 1, live: 1 });
    const { logger, lines } = capturingLogger();
    const client = new ListingClient({ baseUrl: sim.url, apiKey: KEY, logger });
    fixtures.track(client);
    const error = await failureOf(() => client.getPage('pre-recorded'));
    expect((error as Error).name).toBe('AuthenticationError');
    expect(exposure(error)).not.toContain(KEY);
    expect(lines.join('')).not.toContain(KEY);
    expect(sim.log[0]?.hadKey).toBe(true);
  });

  it("blanks the key out of the service's error text, should a server echo it", () => {
    const body = JSON.stringify({ statusCode: 400, message: `bad header x-service-key: ${KEY}` });
    const error = statusError(400, {
      where: 'GET /v2/live',
      body,
      retryAfter: undefined,
      redact: redactor(KEY),
    });
    expect(error.message).toContain('x-service-key: [redacted]');
    expect(exposure(error)).not.toContain(KEY);
  });

  it('blanks an echoed key out before cutting a long error text, so no part of it is left', () => {
    // The key begins just before the cut: cut first, its first characters would stay readable.
    const body = JSON.stringify({ statusCode: 400, message: `${'x'.repeat(490)}${KEY}` });
    const error = statusError(400, {
      where: 'GET /v2/live',
      body,
      retryAfter: undefined,
      redact: redactor(KEY),
    });
    expect(error.message).toContain('[redacted]');
    expect(exposure(error)).not.toContain(KEY.slice(0, 10));
  });
});
