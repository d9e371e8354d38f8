/**
 * Simulators and listing clients for the client's tests: each test file gets its own trackers,
 * and whatever a test started is closed after it, so a failing test leaks no server or socket.
 */
import { afterEach } from 'vitest';
import {
  type ClientOptions,
  ListingClient,
  type ListName,
  type ListParams,
} from '../../src/extract/index.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';

export interface ApiFixtures {
  /** A simulator with the file's defaults, `options` on top; closed after the test. */
  simulator(options?: SimulatorOptions): Promise<Simulator>;
  /** A client of `sim` with no real waits (fast limiter, 1 ms retry base); closed after the test. */
  client(sim: Simulator, options?: Partial<ClientOptions>): ListingClient;
  /** Closes a client made some other way (another key, base URL or logger) after the test too. */
  track(client: ListingClient): ListingClient;
}

export function apiFixtures(defaults: SimulatorOptions = {}): ApiFixtures {
  const clients: ListingClient[] = [];
  const sims: Simulator[] = [];
  afterEach(async () => {
    // Clients first: a simulator closes only when its keep-alive sockets are gone.
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(sims.splice(0).map((sim) => sim.close()));
  });
  const track = (client: ListingClient): ListingClient => {
    clients.push(client);
    return client;
  };
  return {
    async simulator(options = {}) {
      const sim = await startSimulator({ ...defaults, ...options });
      sims.push(sim);
      return sim;
    },
    client: (sim, options = {}) =>
      track(
        new ListingClient({
          baseUrl: sim.url,
          apiKey: sim.apiKey,
          rateLimit: 1_000,
          retryBaseMs: 1,
          ...options,
        }),
      ),
    track,
  };
}

/**
 * The ids of a whole list, in the order served: pages asked on the list's own path with `params`,
 * each at the offset (and limit) of the page before's `next`, until it is null.
 */
export async function walkIds(
  listing: ListingClient,
  list: ListName,
  params: ListParams = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let page = await listing.getPage(list, params); ; ) {
    ids.push(...page.items.map((item) => item.heads.id as string));
    if (page.next === null || page.items.length === 0) return ids;
    if (page.next.offset <= page.offset) throw new Error(`next does not advance past offset ${page.offset}`);
    page = await listing.getPage(list, {
      ...params,
      offset: page.next.offset,
      limit: page.next.limit ?? params.limit,
    });
  }
}
