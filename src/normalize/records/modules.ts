/**
 * The feature modules: the members of a record's `result` that the schema knows and that are
 * feature results (each a `module_results` row), derived from the result schemas of both kinds so
 * that the list cannot drift from them. `metadata` and `transcription` are members of `result` too,
 * but they are columns of `jobs`, not modules.
 *
 * The loader's SQL (sql/load/parse-create.sql, parse.sql, rows-module-results.sql) and
 * docs/schema.md name each module; test/unit/normalize/record-contract.test.ts fails, naming the
 * file and the module, when one of them differs from this list.
 */
import { liveResultSchema, preRecordedResultSchema } from './shapes.js';

/** Members of `result` that are columns of `jobs`, not feature results. */
export const RESULT_COLUMNS = ['metadata', 'transcription'] as const;

type ResultMember = keyof typeof preRecordedResultSchema.shape | keyof typeof liveResultSchema.shape;
export type FeatureModule = Exclude<ResultMember, (typeof RESULT_COLUMNS)[number]>;

/** Every module either kind's result schema names, pre-recorded's first, each once, in schema order. */
export const FEATURE_MODULES: readonly FeatureModule[] = [
  ...new Set([...Object.keys(preRecordedResultSchema.shape), ...Object.keys(liveResultSchema.shape)]),
].filter((name): name is FeatureModule => !(RESULT_COLUMNS as readonly string[]).includes(name));
