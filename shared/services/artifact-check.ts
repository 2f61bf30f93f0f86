import { createHash } from 'node:crypto';
import {
  HEADER_LIMITS,
  HeaderInputError,
  readHeaderFields,
  RUA_LIMITS,
  RuaInputError,
  readReportFile,
} from '../../layers/mailscan/src/artifact-inputs.ts';
import { MAX_ARTIFACT_BYTES, type ArtifactRecord } from '../domain/artifact.ts';

export type CheckOutcome =
  { status: 'ready'; sha256: string; reason: null } | { status: 'rejected'; sha256: string | null; reason: string };

/**
 * The check that turns a pending artifact ready or rejected (DESIGN §4): the bytes match the
 * declared size, and their kind matches the purpose, judged with the scanner's own bounded readers
 * so that what is accepted here is what the scan can read: rua → XML, zip or gzip of DMARC XML
 * (bombs and nested archives refused), eml → an RFC 5322 message.
 */
export async function checkArtifactBytes(record: ArtifactRecord, bytes: Buffer | null): Promise<CheckOutcome> {
  if (bytes === null) return { status: 'rejected', sha256: null, reason: 'no bytes were uploaded' };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (bytes.length > MAX_ARTIFACT_BYTES[record.purpose])
    return {
      status: 'rejected',
      sha256,
      reason: `${bytes.length} bytes or more, over the ${MAX_ARTIFACT_BYTES[record.purpose]}-byte limit for ${record.purpose}`,
    };
  if (bytes.length !== record.size)
    return { status: 'rejected', sha256, reason: `${bytes.length} bytes arrived, ${record.size} were declared` };
  try {
    if (record.purpose === 'rua') {
      // Each document's head decides; readReportFile still decompresses the rest within the bounds.
      await readReportFile(record.filename, bytes, RUA_LIMITS, async (document) => {
        const head = (await headOf(document.chunks, HEAD_BYTES))
          .toString('utf8')
          .replace(/^\uFEFF/, '')
          .trimStart();
        if (!head.startsWith('<')) throw new RuaInputError(`${document.name}: not XML`);
        if (!/<([A-Za-z_][\w.-]*:)?feedback[\s>]/.test(head))
          throw new RuaInputError(`${document.name}: not a DMARC aggregate report (no <feedback> root)`);
      });
    } else {
      readHeaderFields(bytes, HEADER_LIMITS);
    }
  } catch (error) {
    if (error instanceof RuaInputError || error instanceof HeaderInputError) return { status: 'rejected', sha256, reason: error.message };
    throw error;
  }
  return { status: 'ready', sha256, reason: null };
}

const HEAD_BYTES = 64 * 1024;

/** The first `size` bytes of a document (fewer when it is shorter). */
async function headOf(chunks: AsyncIterable<Buffer>, size: number): Promise<Buffer> {
  const head: Buffer[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    head.push(chunk);
    length += chunk.length;
    if (length >= size) break;
  }
  return Buffer.concat(head).subarray(0, size);
}
