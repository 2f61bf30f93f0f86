import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { OBJECT_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/**
 * The S3 client for a composition root; call once at module scope. Tests pass an s3rver endpoint.
 * Request checksums only where S3 requires one: by default the SDK puts the CRC32 of the empty body
 * (`x-amz-checksum-crc32=AAAAAA==`) into a presigned PutObject URL, and a server that honours it
 * refuses every real upload (docs/artifacts.md).
 */
export function makeS3Client(options: Pick<S3ClientConfig, 'endpoint' | 'region' | 'credentials' | 'forcePathStyle'> = {}): S3Client {
  return new S3Client({
    maxAttempts: 3,
    requestHandler: boundedRequestHandler(OBJECT_ATTEMPT),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    ...options,
  });
}
