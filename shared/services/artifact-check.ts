import { createHash } from 'node:crypto';
import {
  HEADER_LIMITS,
  HeaderInputError,
  readHeaderFields,
  RUA_LIMITS,
  RuaInputError,
  unpackReportFile,
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
      const documents = await unpackReportFile(record.filename, bytes, RUA_LIMITS);
      for (const document of documents) {
        const head = Buffer.concat(document.chunks.slice(0, 4))
          .subarray(0, 64 * 1024)
          .toString('utf8')
          .replace(/^\uFEFF/, '')
          .trimStart();
        if (!head.startsWith('<')) return { status: 'rejected', sha256, reason: `${document.name}: not XML` };
        if (!/<([A-Za-z_][\w.-]*:)?feedback[\s>]/.test(head))
          return { status: 'rejected', sha256, reason: `${document.name}: not a DMARC aggregate report (no <feedback> root)` };
      }
    } else {
      readHeaderFields(bytes, HEADER_LIMITS);
    }
  } catch (error) {
    if (error instanceof RuaInputError || error instanceof HeaderInputError) return { status: 'rejected', sha256, reason: error.message };
    throw error;
  }
  return { status: 'ready', sha256, reason: null };
}
