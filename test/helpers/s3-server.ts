/**
 * A real S3 server over HTTP for the tests of `--publish s3://` (s3rver, from the npm registry): it
 * keeps its objects in a folder, checks request signatures against its one key pair, and answers
 * the AWS SDK's calls (PUT, multipart, list, delete). Started on a free port of 127.0.0.1.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';

/** The key pair s3rver accepts; the tests give it to the SDK's chain as AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY. */
export const S3RVER_KEY = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

interface S3rverEvent {
  readonly Records: readonly {
    readonly eventName: string;
    readonly s3: { readonly object: { readonly key: string } };
  }[];
}

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  on(event: 'event', listener: (event: S3rverEvent) => void): void;
  off(event: 'event', listener: (event: S3rverEvent) => void): void;
}

type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

export interface S3Server {
  /** `http://127.0.0.1:PORT`, the endpoint to publish to. */
  readonly url: string;
  /** A client of the server's key pair, for the tests' own reads. */
  readonly client: S3Client;
  /** Calls `listener` with the key of each object created (PUT or a completed multipart upload). */
  onCreated(listener: (key: string) => void): () => void;
  /** The object's bytes; undefined when there is none. */
  get(bucket: string, key: string): Promise<Uint8Array | undefined>;
  /** Every key under `prefix`. */
  keys(bucket: string, prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts a server whose folder is `dir`, with the buckets `buckets` made. */
export async function startS3Server(dir: string, buckets: readonly string[]): Promise<S3Server> {
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: join(dir, 's3rver'),
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const { port } = await server.run();
  const url = `http://127.0.0.1:${port}`;
  const config: S3ClientConfig = {
    endpoint: url,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: S3RVER_KEY,
  };
  const client = new S3Client(config);
  return {
    url,
    client,
    onCreated(listener) {
      const onEvent = (event: S3rverEvent) => {
        for (const record of event.Records) {
          if (record.eventName.startsWith('ObjectCreated'))
            listener(decodeURIComponent(record.s3.object.key));
        }
      };
      server.on('event', onEvent);
      return () => server.off('event', onEvent);
    },
    async get(bucket, key) {
      try {
        const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return await got.Body?.transformToByteArray();
      } catch (error) {
        if (error instanceof NoSuchKey) return undefined;
        throw error;
      }
    },
    async keys(bucket, prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async close() {
      client.destroy();
      await server.close();
    },
  };
}
