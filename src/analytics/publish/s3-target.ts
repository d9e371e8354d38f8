/**
 * `--publish s3://BUCKET/PREFIX`: the dataset in an S3-compatible bucket (AWS S3, MinIO, R2, Ceph),
 * through the AWS SDK v3. Credentials and region come from the SDK's default chain; an endpoint
 * (--publish-endpoint, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL) is addressed path-style. Retries
 * follow the SDK's standard policy (3 attempts).
 *
 * Readers never see a half-published dataset (docs/decisions/0014-published-dataset.md):
 * - a partition file is uploaded under a name no publish reuses,
 *   `PREFIX/<table>/kind=K/month=M/part-<publish id>.parquet`, so no object a manifest names is
 *   ever overwritten;
 * - the manifest is written last: first as `PREFIX/_manifests/<publish id>.json`, then as
 *   `PREFIX/_manifest.json`, the one pointer to the current files (a PUT replaces an object whole);
 * - then what no kept manifest names is deleted (prune).
 * A failed or interrupted publish leaves `_manifest.json` as it was; what it uploaded is named by no
 * manifest and goes with the next publish's deletions. An upload that fails or is stopped aborts its
 * multipart upload (a SIGKILL leaves it to the bucket's lifecycle rule, docs/operating.md).
 */
import { randomBytes } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { StorageError } from '../../errors.js';
import { type BucketLocation, bucketLocation } from './bucket-url.js';
import type { DatasetTarget } from './folder-target.js';
import { MANIFEST_FILE, type Manifest, manifestText } from './manifest.js';
import { Bucket, openUploads } from './s3-bucket.js';

/** The manifests of the last publishes, `<publish id>.json`, under the dataset's prefix. */
const MANIFESTS_FOLDER = '_manifests/';
/** The region a path-style endpoint gets when the SDK's chain names none (MinIO's and Ceph's default). */
const ENDPOINT_REGION = 'us-east-1';

export interface BucketTargetOptions {
  /** `s3://BUCKET[/PREFIX]`, validated by the settings table. */
  readonly url: string;
  /** Manifests kept (with the files they name), at least 1. */
  readonly keep: number;
  readonly endpoint?: string;
  /** The tables the dataset holds: only objects under their prefixes are ever deleted. */
  readonly tables: readonly string[];
  readonly now: Date;
  readonly signal?: AbortSignal;
}

export async function openBucketTarget(options: BucketTargetOptions): Promise<DatasetTarget> {
  const location = bucketLocation(options.url);
  const client = await s3Client(options.endpoint, location);
  const store = new Bucket(client, location, options.endpoint);
  try {
    const listed = await store.list();
    const previous = listed.has(MANIFEST_FILE) ? await store.getManifest(MANIFEST_FILE) : undefined;
    const id = `${options.now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
    const uploads = openUploads(store, options.signal);
    return {
      previous,
      holds: (file) => listed.has(file),
      async place(staged, table, kind, month) {
        const file = `${table}/kind=${kind}/month=${month}/part-${id}.parquet`;
        await uploads.start(staged, file);
        return file;
      },
      // The partition leaves the next manifest; its old file goes with the deletions of a later one.
      drop: async () => {},
      async commit(manifest) {
        await uploads.finish();
        const text = manifestText(manifest);
        await store.put(`${MANIFESTS_FOLDER}${id}.json`, text);
        await store.put(MANIFEST_FILE, text);
        await prune(store, { ...options, listed, current: manifest, previous, id });
        return 2 * Buffer.byteLength(text);
      },
      async close() {
        await uploads.stop();
        client.destroy();
      },
    };
  } catch (error) {
    client.destroy();
    throw error;
  }
}

/** A client of the SDK's default chain; with an endpoint, path-style and a region even if none is set. */
async function s3Client(endpoint: string | undefined, location: BucketLocation): Promise<S3Client> {
  const client = new S3Client(endpoint === undefined ? {} : { endpoint, forcePathStyle: true });
  const region = await client.config.region().catch(() => undefined);
  if (region !== undefined && region !== '') return client;
  client.destroy();
  if (endpoint !== undefined)
    return new S3Client({ endpoint, forcePathStyle: true, region: ENDPOINT_REGION });
  throw new StorageError(`could not publish to ${location.url}: no AWS region is set`, {
    retryable: false,
    hint: 'set AWS_REGION (or a region in the AWS profile), or AWS_ENDPOINT_URL_S3 for an S3-compatible store',
  });
}

/**
 * Deletes the manifests past the last `keep` and the objects under the tables' prefixes that none
 * of those, nor (with keep >= 2) the manifest current when this publish started, names. Should
 * one of the kept manifests not read back, no data object is deleted this time.
 */
async function prune(
  bucket: Bucket,
  run: Pick<BucketTargetOptions, 'keep' | 'tables'> & {
    readonly listed: ReadonlySet<string>;
    readonly current: Manifest;
    readonly previous: Manifest | undefined;
    readonly id: string;
  },
): Promise<void> {
  const manifests = [
    `${MANIFESTS_FOLDER}${run.id}.json`,
    ...[...run.listed].filter((name) => name.startsWith(MANIFESTS_FOLDER) && name.endsWith('.json')),
  ].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const kept = manifests.slice(0, run.keep);
  const doomed = manifests.slice(run.keep);
  // The manifest current at the start is kept too (with keep >= 2), even when a publish killed
  // between its two manifest writes left a newer one in _manifests/ that never became current.
  const previous = run.keep > 1 && run.previous ? filesOf(run.previous) : [];
  const named = new Set([...filesOf(run.current), ...previous]);
  let readable = true;
  for (const name of kept.slice(1)) {
    const manifest = await bucket.getManifest(name);
    if (manifest === undefined) readable = false;
    else for (const file of filesOf(manifest)) named.add(file);
  }
  if (readable) {
    const data = run.tables.map((table) => `${table}/`);
    for (const name of run.listed) {
      if (!named.has(name) && data.some((start) => name.startsWith(start))) doomed.push(name);
    }
  }
  await bucket.delete(doomed);
}

function filesOf(manifest: Manifest): string[] {
  return Object.values(manifest.tables).flatMap((table) =>
    table.partitions.flatMap((p) => (p.file === null ? [] : [p.file])),
  );
}
