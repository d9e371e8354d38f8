/**
 * EXTRACT's only door (dependency-cruiser enforces it): the listing service client, the walk of a
 * window's pages and the byte scan of a page (ListScanner: what another stage extends to read more
 * of each item in the same pass). See ./client.ts for the behaviour and
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
export { INT32_MAX, INT32_MIN, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-lexer.js';
export {
  type EnvelopeScan,
  HeadScanner,
  type ItemSpan,
  ListScanner,
  type ScannerClass,
  scanListBody,
} from './json-scan.js';
export { type Listing, type NextLink, type Page, parseNextLink } from './listing.js';
export { DEFAULT_ANOMALY_PAUSE_MS } from './page-anomalies.js';
export { PAGE_TARGET_BYTES, PageSizer } from './page-sizer.js';
export { type Paging, planWindow } from './plan-window.js';
export { buildQuery, DEFAULT_LIMIT, validateListParams } from './query.js';
export { DEFAULT_RATE_LIMIT, RateLimiter } from './rate-limiter.js';
export {
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  RETRY_ERROR_CODES,
  RETRY_STATUSES,
  type RetryPolicy,
} from './retry-policy.js';
export { defaultSliceJobs, type Slice } from './slices.js';
export type { ClientOptions, ClientStats, ListParams, RequestOptions } from './types.js';
export { type PageBudget, type WalkOptions, walkSlice } from './walk-slice.js';
