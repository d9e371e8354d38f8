/**
 * Every file of sql/load/ by name, and its text, read once per process; each run by one typed function
 * of loader.ts or file-upkeep.ts, the only readers of `loadSql` (test/unit/store/store-queries.test.ts).
 */
import { sqlText } from './queries.js';

export const LOAD_SQL = [
  'stage-create',
  'row-groups',
  'row-groups-runs',
  'parse-create',
  'classify',
  'classify-anywhere',
  'stored-ids-count',
  'stored-ids',
  'restore',
  'replace',
  'refresh-erased',
  'finish',
  'parse',
  'rows-jobs',
  'rows-job-records',
  'rows-utterances',
  'rows-words',
  'rows-module-results',
  'parse-reset',
  'records-apart-reset',
  'records-apart-batches',
  'records-apart-copy',
] as const;
export type LoadSqlName = (typeof LOAD_SQL)[number];

export const loadSql = (name: LoadSqlName) => sqlText('load', name);
