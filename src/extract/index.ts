/**
 * The listing service client: what the sync engine imports. See ./client.ts for the behaviour and
 * ./retry-policy.ts for what retries.
 */

export {
  JOB_KINDS,
  JOB_STATUSES,
  type JobKind,
  type JobStatus,
  LIST_NAMES,
  type ListName,
} from '../kinds.js';
export { ListingClient } from './client.js';
export { parseNextLink } from './next-link.js';
export { buildQuery, DEFAULT_LIMIT, validateListParams } from './query.js';
export { RateLimiter } from './rate-limiter.js';
export {
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  RETRY_ERROR_CODES,
  RETRY_STATUSES,
  type RetryPolicy,
} from './retry-policy.js';
export type { ClientOptions, ClientStats, ListParams, NextLink, Page, RequestOptions } from './types.js';
