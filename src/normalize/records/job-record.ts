/**
 * The job record (spec 2.2) of both kinds. A record loads when it has a non-empty `id`, a known
 * `kind` and `status`, and a `created_at` instant with an offset or Z; everything else may be absent
 * or null but must have its documented type when present. Unknown fields are kept.
 */
import { z } from 'zod';
import { JOB_KINDS, JOB_STATUSES } from '../../kinds.js';
import { liveParamsSchema, preRecordedParamsSchema } from './request-params.js';
import { fileSchema, freeObject, int32, liveResultSchema, preRecordedResultSchema, str } from './shapes.js';

/** ISO 8601 with an offset or Z, any sub-second precision: what DuckDB's TIMESTAMPTZ takes. */
export const instant = z.iso.datetime({ offset: true });

const commonFields = {
  id: z.string().min(1),
  request_id: str,
  version: int32,
  status: z.enum(JOB_STATUSES),
  created_at: instant,
  completed_at: instant.nullish(),
  post_session_metadata: freeObject,
  custom_metadata: freeObject,
  error_code: int32,
  file: fileSchema.nullish(),
};

const preRecordedJobSchema = z.looseObject({
  ...commonFields,
  kind: z.literal('pre-recorded'),
  request_params: preRecordedParamsSchema.nullish(),
  result: preRecordedResultSchema.nullish(),
});

const liveJobSchema = z.looseObject({
  ...commonFields,
  kind: z.literal('live'),
  request_params: liveParamsSchema.nullish(),
  result: liveResultSchema.nullish(),
});

export const jobRecordSchema = z.discriminatedUnion('kind', [preRecordedJobSchema, liveJobSchema]);

/** Used only to report every problem of a record whose `kind` is missing or unknown. */
export const jobHeadSchema = z.looseObject({ ...commonFields, kind: z.enum(JOB_KINDS) });

export type JobRecord = z.infer<typeof jobRecordSchema>;
