/** EXTRACT's only door (dependency-cruiser enforces it). */
export { LIST_NAMES, type ListName } from '../kinds.js';
export { ListingClient } from './client.js';
export type { ClientOptions, ListParams, RequestOptions } from './client-options.js';
export { INT32_MAX, INT32_MIN, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './json-lexer.js';
export { ListScanner, scanListBody } from './json-scan.js';
export type { Listing, Page } from './listing.js';
export { DEFAULT_ANOMALY_PAUSE_MS } from './page-anomalies.js';
export { PageSizer } from './page-sizer.js';
export { buildQuery, validateListParams } from './query.js';
export { defaultSliceJobs, planWindow } from './slices.js';
export { DEFAULT_RATE_LIMIT } from './throttle.js';
export { type PageBudget, type Paging, type Slice, type WalkOptions, walkSlice } from './walk-slice.js';
