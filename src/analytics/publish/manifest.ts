/**
 * `_manifest.json` of a published dataset: when its data was taken, and per table and partition
 * the file, its row count and the fingerprint that decides whether the next publish rewrites it.
 * Written last and atomically, so it never names a file that is not in place.
 */
import { z } from 'zod';
import { writeJson } from '../../util/json-writer.js';

export const MANIFEST_FILE = '_manifest.json';
/**
 * Bumped when the layout or a column's type changes: a manifest of another version makes the next
 * publish rewrite all, so no dataset mixes files of two schemas.
 */
export const MANIFEST_VERSION = 3;

const partition = z.object({
  kind: z.string(),
  month: z.string(),
  rows: z.number().int().nonnegative(),
  /** Relative to the dataset folder; null when the partition has jobs but this table has no rows. */
  file: z.string().nullable(),
  fingerprint: z.string(),
});
export type PublishedPartition = z.output<typeof partition>;

const table = z.object({ rows: z.number().int().nonnegative(), partitions: z.array(partition) });
export type PublishedTable = z.output<typeof table>;

/**
 * How current one kind's data is. `as_of`: the window end of its last successful sync (every job
 * created before it is in the data; null: never synced). `stale`: its newest run did not end ok
 * (`error` says why), so its data stops at `as_of` while the other kind's may be newer.
 */
const kindState = z.object({
  as_of: z.string().nullable(),
  stale: z.boolean(),
  error: z.string().nullable(),
});
export type PublishedKind = z.output<typeof kindState>;

const manifest = z.object({
  version: z.literal(MANIFEST_VERSION),
  /** The data is the writer's as of this instant (it commits nothing while it publishes). */
  as_of: z.string(),
  /** Per kind that has runs; absent in a manifest of an earlier release. */
  kinds: z.record(z.string(), kindState).optional(),
  /** Whether jobs carry `raw` (--publish-raw). */
  raw: z.boolean(),
  tables: z.record(z.string(), table),
});
export type Manifest = z.output<typeof manifest>;

/** A manifest's text read back; undefined when it is not one of this version. */
export function parseManifest(text: string): Manifest | undefined {
  try {
    const parsed = manifest.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function manifestText(value: Manifest): string {
  return `${writeJson(value, { indent: 2 })}\n`;
}
