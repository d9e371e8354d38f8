/**
 * `--publish s3://BUCKET/PREFIX`: the bucket and the key prefix a dataset is published under, and
 * the object store's faults as the one line a user reads (StorageError): what happened in the
 * store's own words (its error name and HTTP status, never its message, never a credential), the
 * fix, and whether the next run may pass as it is. The settings table (src/config/values.ts,
 * publishLocation) has already refused a malformed URL; this only splits a valid one, without
 * loading the AWS SDK.
 */
import { StorageError } from '../../errors.js';

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

/** The SDK's answer names: the one line for each fault, its fix, whether the next run may pass. */
export function storageError(
  error: unknown,
  location: BucketLocation,
  endpoint: string | undefined,
): StorageError {
  if (error instanceof StorageError) return error;
  const fault = error as {
    name?: string;
    code?: string;
    Code?: string;
    $metadata?: { httpStatusCode?: number };
    errors?: { code?: string }[];
  };
  const name = fault.Code ?? fault.name ?? 'Error';
  const status = fault.$metadata?.httpStatusCode;
  const said = status === undefined ? name : `${name}, HTTP ${status}`;
  const fail = (what: string, retryable: boolean, hint: string) =>
    new StorageError(`could not publish to ${location.url}: ${what}`, { retryable, hint, cause: error });
  if (name === 'AbortError') return fail('the upload was stopped', true, 'the next run publishes again');
  if (name === 'NoSuchBucket') {
    return fail(
      `the bucket ${location.bucket} does not exist (${said})`,
      false,
      'create the bucket, or fix its name in --publish (TSYNC_PUBLISH)',
    );
  }
  if (
    [
      'InvalidAccessKeyId',
      'SignatureDoesNotMatch',
      'ExpiredToken',
      'ExpiredTokenException',
      'TokenRefreshRequired',
      'InvalidToken',
      'CredentialsProviderError',
    ].includes(name)
  ) {
    return fail(
      `the object store refused the credentials (${said})`,
      false,
      'renew or set the credentials of the AWS chain (AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a role)',
    );
  }
  if (name === 'AccessDenied' || name === 'AllAccessDisabled' || status === 403) {
    return fail(
      `access denied (${said})`,
      false,
      `grant the publisher s3:ListBucket, s3:GetObject, s3:PutObject and s3:DeleteObject on ${location.prefix === '' ? 'the bucket' : `the prefix ${location.prefix}`} (docs/querying.md)`,
    );
  }
  const code = fault.code ?? fault.errors?.[0]?.code;
  const network = [
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'ETIMEDOUT',
    'ECONNRESET',
    'EHOSTUNREACH',
    'ENETUNREACH',
  ];
  if ((code !== undefined && network.includes(code)) || name === 'TimeoutError') {
    return fail(
      `cannot reach ${endpoint ?? 'the S3 endpoint of its region'} (${code ?? name})`,
      true,
      'check --publish-endpoint (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL), the region and the network; the next run publishes again',
    );
  }
  return fail(
    `the object store answered ${said}`,
    status === undefined || status >= 500,
    'the sync itself is committed and the next run publishes again',
  );
}
