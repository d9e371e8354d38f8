/**
 * The checkpoint as stored (JSON in DuckDB or Redis), validated when read back: a store written
 * by another version, or edited by hand, must not steer a run with garbage.
 */
import { z } from 'zod';
import type { Checkpoint } from '../types.js';

const isoInstant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'not an ISO 8601 instant');

const checkpointSchema = z.object({
  watermark: isoInstant.nullable(),
  pending: z.array(z.string()),
  slice: z.object({ after: isoInstant.nullable(), before: isoInstant }).nullable(),
  // The summary is informational (status output); keep whatever shape it had.
  lastRun: z.looseObject({ runId: z.string(), outcome: z.string() }).nullable(),
});

export function parseCheckpoint(text: string | null | undefined): Checkpoint | null {
  if (!text) return null;
  try {
    return (checkpointSchema.safeParse(JSON.parse(text)).data as Checkpoint | undefined) ?? null;
  } catch {
    return null;
  }
}

export const EMPTY_CHECKPOINT: Checkpoint = Object.freeze({
  watermark: null,
  pending: [],
  slice: null,
  lastRun: null,
});
