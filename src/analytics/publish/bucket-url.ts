/**
 * `--publish s3://BUCKET/PREFIX`: the bucket and the key prefix a dataset is published under. The
 * settings table (src/config/values.ts, publishLocation) has already refused a malformed URL; this
 * only splits a valid one, without loading the AWS SDK.
 */

export interface BucketLocation {
  readonly bucket: string;
  /** Every key of the dataset starts with it: empty, or ending in `/`. */
  readonly prefix: string;
  /** `s3://BUCKET/PREFIX` as shown in lines and logs. */
  readonly url: string;
}

export function isBucketUrl(location: string): boolean {
  return location.startsWith('s3://');
}

export function bucketLocation(url: string): BucketLocation {
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+|\/+$/g, '');
  return { bucket, prefix: path === '' ? '' : `${path}/`, url };
}
