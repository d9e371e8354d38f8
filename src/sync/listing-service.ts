/** The listing service over HTTP as the engine's ListingSource: the src/api client's pages, as the walk reads them. */
import type { ListingClient, ListName, ListParams, RequestOptions } from '../api/index.js';
import { type ListingSource, type SourcePage, sourcePage } from './listing-source.js';

export class ListingService implements ListingSource {
  readonly #client: ListingClient;

  /** The client stays this service's: close() closes it. */
  constructor(client: ListingClient) {
    this.#client = client;
  }

  get stats() {
    return this.#client.stats;
  }

  async getPage(list: ListName, params: ListParams, request: RequestOptions): Promise<SourcePage> {
    return sourcePage(await this.#client.getPage(list, params, request));
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}
