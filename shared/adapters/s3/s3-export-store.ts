import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { EXPORT_URL_TTL_SECONDS, exportKey } from '../../domain/export-file.ts';
import type { ExportStore } from '../../ports/export-store.ts';
import type { IdGenerator } from '../../ports/id-generator.ts';
import type { Logger } from '../../ports/logger.ts';

/** S3's smallest part but the last one's (5 MiB). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/**
 * The chunks as upload parts: each at least `minBytes` but the last, made of whole chunks, so the
 * function holds under `minBytes` plus one chunk; an empty stream is one empty part.
 */
export async function* partsOf(chunks: AsyncIterable<string>, minBytes = MIN_PART_BYTES): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let bytes = 0;
  let made = 0;
  for await (const chunk of chunks) {
    const buffer = Buffer.from(chunk, 'utf8');
    held.push(buffer);
    bytes += buffer.length;
    if (bytes >= minBytes) {
      const part = Buffer.concat(held, bytes);
      held = [];
      bytes = 0;
      made += 1;
      yield part;
    }
  }
  if (bytes > 0 || made === 0) yield Buffer.concat(held, bytes);
}

/**
 * Exports in the artifacts bucket under `_exports/<tenant>/<id>.csv`, written as a multipart upload
 * while the chunks are made (never the whole file in memory) and offered by a presigned GET URL.
 * Any failure aborts the upload, so no part of it is ever an object; an upload the function could
 * not abort (it timed out, or the abort failed) is removed by the bucket's lifecycle after a day.
 */
export function makeS3ExportStore(client: S3Client, bucket: string, ids: IdGenerator, logger: Logger): ExportStore {
  return {
    async save(tenant, chunks, file) {
      const Key = exportKey(tenant, ids.newId('exp'));
      const { UploadId } = await client.send(
        new CreateMultipartUploadCommand({
          Bucket: bucket,
          Key,
          ContentType: file.contentType,
          ContentDisposition: `attachment; filename="${file.name}"`,
        }),
      );
      if (!UploadId) throw new Error('S3 answered no multipart upload id');
      const upload = { Bucket: bucket, Key, UploadId };
      try {
        const parts: CompletedPart[] = [];
        for await (const body of partsOf(chunks)) {
          const PartNumber = parts.length + 1;
          const { ETag } = await client.send(new UploadPartCommand({ ...upload, PartNumber, Body: body, ContentLength: body.length }));
          parts.push({ PartNumber, ETag });
        }
        await client.send(new CompleteMultipartUploadCommand({ ...upload, MultipartUpload: { Parts: parts } }));
      } catch (error) {
        await client
          .send(new AbortMultipartUploadCommand(upload))
          .catch((abortError: unknown) =>
            logger.warn('could not abort the export upload: the lifecycle rule removes it', { key: Key, error: String(abortError) }),
          );
        throw error;
      }
      logger.info('export written', { key: Key });
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key }), { expiresIn: EXPORT_URL_TTL_SECONDS });
    },
  };
}
