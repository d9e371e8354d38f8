/**
 * The values of @duckdb/node-api the program uses, loaded with `require`. The package is CommonJS:
 * imported as an ES module, Node first scans the source of each of its ~40 re-exported files for
 * export names (cjs-module-lexer) at every start of a command that opens a file
 * (docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md). Types come from the package
 * itself (`import type`); each class and enum below is exported as a value and as a type.
 */
import { createRequire } from 'node:module';
import type * as Api from '@duckdb/node-api';

const api = createRequire(import.meta.url)('@duckdb/node-api') as typeof Api;

export const {
  DuckDBArrayValue,
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBInstance,
  DuckDBIntervalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBUnionValue,
  DuckDBUUIDValue,
  JSDuckDBValueConverter,
  LIST,
  listValue,
  StatementType,
  timestampTZValue,
  VARCHAR,
} = api;

export type DuckDBArrayValue = Api.DuckDBArrayValue;
export type DuckDBBlobValue = Api.DuckDBBlobValue;
export type DuckDBDateValue = Api.DuckDBDateValue;
export type DuckDBDecimalValue = Api.DuckDBDecimalValue;
export type DuckDBInstance = Api.DuckDBInstance;
export type DuckDBIntervalValue = Api.DuckDBIntervalValue;
export type DuckDBListValue = Api.DuckDBListValue;
export type DuckDBMapValue = Api.DuckDBMapValue;
export type DuckDBStructValue = Api.DuckDBStructValue;
export type DuckDBTimestampMillisecondsValue = Api.DuckDBTimestampMillisecondsValue;
export type DuckDBTimestampNanosecondsValue = Api.DuckDBTimestampNanosecondsValue;
export type DuckDBTimestampSecondsValue = Api.DuckDBTimestampSecondsValue;
export type DuckDBTimestampTZValue = Api.DuckDBTimestampTZValue;
export type DuckDBTimestampValue = Api.DuckDBTimestampValue;
export type DuckDBTypeId = Api.DuckDBTypeId;
export type DuckDBUnionValue = Api.DuckDBUnionValue;
export type DuckDBUUIDValue = Api.DuckDBUUIDValue;
export type StatementType = Api.StatementType;
