/**
 * The SDK's calls on a bucket publish's prefix (s3-target.ts), each failure a StorageError. Uploads
 * stream files from disk, one part in flight each, so a publish holds about UPLOADS_AT_ONCE x
 * PART_BYTES of file in memory whatever a partition's size.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { StorageError } from '../../errors.js';
import { type BucketLocation, storageError } from './bucket-url.js';
import { type Manifest, parseManifest } from './manifest.js';

/** S3's smallest part: a multipart upload holds at most this much of a file in memory. */
const PART_BYTES = 5 * 2 ** 20;
const UPLOADS_AT_ONCE = 4;
/** S3's most keys in one DeleteObjects. */
const DELETE_BATCH = 1_000;

export class Bucket {
  constructor(
    readonly client: S3Client,
    readonly location: BucketLocation,
    readonly endpoint: string | undefined,
  ) {}

  key(file: string): string {
    return `${this.location.prefix}${file}`;
  }

  /** Every object under the prefix, by its name relative to the prefix. */
  async list(): Promise<Set<string>> {
    return this.guard(async () => {
      const names = new Set<string>();
      const pages = paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.location.bucket, Prefix: this.location.prefix },
      );
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          if (object.Key !== undefined) names.add(object.Key.slice(this.location.prefix.length));
        }
      }
      return names;
    });
  }

  /** A manifest read back; undefined when it is not one of this version. */
  async getManifest(file: string): Promise<Manifest | undefined> {
    return this.guard(async () => {
      const got = await this.client.send(
        new GetObjectCommand({ Bucket: this.location.bucket, Key: this.key(file) }),
      );
      return parseManifest((await got.Body?.transformToString('utf8')) ?? '');
    });
  }

  async put(file: string, text: string): Promise<void> {
    const object = { Bucket: this.location.bucket, Key: this.key(file), ContentType: 'application/json' };
    await this.guard(() => this.client.send(new PutObjectCommand({ ...object, Body: text })));
  }

  async delete(names: readonly string[]): Promise<void> {
    for (let at = 0; at < names.length; at += DELETE_BATCH) {
      const batch = names.slice(at, at + DELETE_BATCH);
      const answer = await this.guard(() =>
        this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.location.bucket,
            Delete: { Objects: batch.map((name) => ({ Key: this.key(name) })), Quiet: true },
          }),
        ),
      );
      const failed = answer.Errors?.[0];
      if (failed) {
        throw new StorageError(
          `could not publish to ${this.location.url}: deleting ${failed.Key ?? 'an old file'} failed (${failed.Code ?? 'no code'})`,
          {
            retryable: true,
            hint: 'grant the publisher s3:DeleteObject on the prefix (docs/querying.md); the new manifest is in place',
          },
        );
      }
    }
  }

  async guard<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw storageError(error, this.location, this.endpoint);
    }
  }
}

/** The uploads of one publish: at most UPLOADS_AT_ONCE in flight, the first failure kept. */
export function openUploads(bucket: Bucket, signal: AbortSignal | undefined) {
  const inFlight = new Map<Upload, Promise<void>>();
  let failure: unknown;
  const throwIfFailed = () => {
    if (failure !== undefined) throw storageError(failure, bucket.location, bucket.endpoint);
    signal?.throwIfAborted();
  };
  /** Aborts what is in flight, its multipart upload with it. */
  const stop = async () => {
    signal?.removeEventListener('abort', onAbort);
    await Promise.all([...inFlight.keys()].map((upload) => abortUpload(upload, bucket)));
    await Promise.all(inFlight.values());
  };
  const onAbort = () => void stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    /** Starts uploading `staged` as `file` (the staged file is removed once it is up). */
    async start(staged: string, file: string): Promise<void> {
      while (inFlight.size >= UPLOADS_AT_ONCE) await Promise.race(inFlight.values());
      throwIfFailed();
      const upload = new Upload({
        client: bucket.client,
        params: {
          Bucket: bucket.location.bucket,
          Key: bucket.key(file),
          Body: createReadStream(staged),
          ContentType: 'application/vnd.apache.parquet',
        },
        partSize: PART_BYTES,
        queueSize: 1,
        leavePartsOnError: false,
      });
      const done = upload
        .done()
        .then(() => rm(staged, { force: true }))
        .catch((error: unknown) => {
          failure ??= error;
        })
        .finally(() => inFlight.delete(upload));
      inFlight.set(upload, done);
    },
    /** Waits for every upload; the first failure is thrown. */
    async finish(): Promise<void> {
      await Promise.all(inFlight.values());
      throwIfFailed();
    },
    stop,
  };
}

/**
 * Upload.abort() stops the parts still to send and rejects done() at once; the multipart upload is
 * aborted only once the part in flight returns, which a process about to exit may not see. So it
 * is aborted here too, by its id (a second abort of the same upload is answered NoSuchUpload).
 */
async function abortUpload(upload: Upload, bucket: Bucket): Promise<void> {
  await upload.abort();
  // The id of the multipart upload, set once S3 created it; not part of Upload's typed surface.
  const uploadId = (upload as unknown as { uploadId?: string }).uploadId;
  const key = (upload as unknown as { params?: { Key?: string } }).params?.Key;
  if (uploadId === undefined || key === undefined) return;
  await bucket.client
    .send(new AbortMultipartUploadCommand({ Bucket: bucket.location.bucket, Key: key, UploadId: uploadId }))
    .catch(() => undefined);
}
