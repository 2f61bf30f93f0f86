import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

/** The S3 client for a composition root; call once at module scope. Tests pass an s3rver endpoint. */
export function makeS3Client(options: Pick<S3ClientConfig, 'endpoint' | 'region' | 'credentials' | 'forcePathStyle'> = {}): S3Client {
  return new S3Client({ maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 10_000 }, ...options });
}
