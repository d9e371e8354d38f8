/**
 * NORMALIZE's only door (dependency-cruiser enforces it): a page's records, loaded or quarantined,
 * their content hash, and RecordScanner, which checks them in the page's one scan.
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
