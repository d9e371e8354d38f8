/**
 * NORMALIZE's only door (dependency-cruiser enforces it): a page's records, taken as they are when
 * they meet the record's shape or judged by the schema, their content hash, and the scanner that
 * checks the shape in the page's one scan (RecordScanner, for the listing client).
 */
export {
  contentHash,
  type JobText,
  mergePageRecords,
  normalizePage,
  normalizeTexts,
  type PageRecords,
  type QuarantinedText,
  type RecordProblem,
  validateJobRecord,
} from './page-records.js';
export { RecordScanner } from './record-scan.js';
