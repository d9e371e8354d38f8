/**
 * The uploads of a bucket publish (s3-target.ts): files streamed from disk with the SDK's Upload
 * (lib-storage), at most UPLOADS_AT_ONCE at once, each in parts of PART_BYTES with one part in
 * flight, so a publish holds about UPLOADS_AT_ONCE x PART_BYTES of file in memory whatever a
 * partition's size. An upload that fails or is stopped aborts its multipart upload.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { AbortMultipartUploadCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { type BucketLocation, storageError } from './bucket-url.js';

/** S3's smallest part: a multipart upload holds at most this much of a file in memory. */
const PART_BYTES = 5 * 2 ** 20;
const UPLOADS_AT_ONCE = 4;

/** Where the files go: the client, the bucket and prefix, the endpoint named in errors. */
export interface UploadBucket {
  readonly client: S3Client;
  readonly location: BucketLocation;
  readonly endpoint: string | undefined;
  /** The object key of a file named relative to the dataset. */
  key(file: string): string;
}

/** The uploads of one publish: at most UPLOADS_AT_ONCE in flight, the first failure kept. */
export function openUploads(bucket: UploadBucket, signal: AbortSignal | undefined) {
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
async function abortUpload(upload: Upload, bucket: UploadBucket): Promise<void> {
  await upload.abort();
  // The id of the multipart upload, set once S3 created it; not part of Upload's typed surface.
  const uploadId = (upload as unknown as { uploadId?: string }).uploadId;
  const key = (upload as unknown as { params?: { Key?: string } }).params?.Key;
  if (uploadId === undefined || key === undefined) return;
  await bucket.client
    .send(new AbortMultipartUploadCommand({ Bucket: bucket.location.bucket, Key: key, UploadId: uploadId }))
    .catch(() => undefined);
}
