import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { artifactKey, UPLOAD_TTL_SECONDS } from '../../domain/artifact.ts';
import { ArtifactId } from '../../domain/ids.ts';
import { TENANT_PATTERN } from '../../domain/identity.ts';
import type { ArtifactStore } from '../../ports/artifact-store.ts';

function keyOf(tenant: string, id: string): string {
  if (!TENANT_PATTERN.test(tenant) || !ArtifactId.safeParse(id).success) throw new Error(`invalid artifact key ${tenant}/${id}`);
  return artifactKey(tenant, id);
}

const isMissing = (error: unknown) =>
  error instanceof NoSuchKey ||
  (error as { name?: string }).name === 'NoSuchKey' ||
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/**
 * Artifacts in S3 under `<tenant>/<id>`. Uploads are presigned PUTs valid 15 minutes that sign
 * content-length and content-type, so S3 refuses a body of another length or type
 * (SignatureDoesNotMatch) and nothing is stored.
 */
export function makeS3ArtifactStore(client: S3Client, bucket: string): ArtifactStore {
  return {
    async uploadInstructions(target, now) {
      const command = new PutObjectCommand({
        Bucket: bucket,
        Key: keyOf(target.tenant, target.id),
        ContentLength: target.size,
        ContentType: target.contentType,
      });
      const url = await getSignedUrl(client, command, {
        expiresIn: UPLOAD_TTL_SECONDS,
        signableHeaders: new Set(['content-type', 'content-length']),
        signingDate: now,
      });
      return {
        method: 'PUT',
        url,
        headers: { 'content-type': target.contentType, 'content-length': String(target.size) },
        expires_at: new Date(now.getTime() + UPLOAD_TTL_SECONDS * 1000).toISOString(),
      };
    },

    async read(tenant, id, maxBytes) {
      try {
        const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(tenant, id), Range: `bytes=0-${maxBytes}` }));
        return Body ? Buffer.from(await Body.transformToByteArray()) : Buffer.alloc(0);
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async fetchTo(tenant, id, path) {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(tenant, id) }));
      if (!Body) throw new Error('empty object');
      await pipeline(Body as Readable, createWriteStream(path));
    },

    async write(tenant, id, bytes, contentType) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(tenant, id), Body: bytes, ContentType: contentType }));
    },

    async remove(tenant, id) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(tenant, id) }));
    },
  };
}

/** The bucket key of an S3 event record as tenant and id, or null for a key that is not an artifact's. */
export function artifactOfKey(key: string): { tenant: string; id: string } | null {
  const [tenant, id, ...rest] = decodeURIComponent(key.replace(/\+/g, ' ')).split('/');
  if (rest.length > 0 || !tenant || !id || !TENANT_PATTERN.test(tenant) || !ArtifactId.safeParse(id).success) return null;
  return { tenant, id };
}
