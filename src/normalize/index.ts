/**
 * NORMALIZE's only door (dependency-cruiser enforces it): a page's records, vouched for by the byte
 * scan or judged by the schema, their content hash, and the record's shape the scan checks.
 */
export { contentHash } from './content-hash.js';
export {
  type JobText,
  mergePageRecords,
  normalizePage,
  normalizeTexts,
  type PageRecords,
  type QuarantinedText,
} from './page-records.js';
export { RECORD_SHAPE } from './record-shape.js';
export { type RecordProblem, validateJobRecord } from './records/validate.js';
