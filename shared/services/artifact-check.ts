import { createHash } from 'node:crypto';
import { ARTIFACT_CONTENT_CHECKS } from '../../lib/mail-artifacts/content-checks.ts';
import { MAX_ARTIFACT_BYTES, type ArtifactRecord } from '../domain/artifact.ts';

export type CheckOutcome =
  { status: 'ready'; sha256: string; reason: null } | { status: 'rejected'; sha256: string | null; reason: string };

/**
 * The check that turns a pending artifact ready or rejected (DESIGN §4): the bytes match the
 * declared size, and their kind matches the purpose, judged by the purpose's content check
 * (lib/mail-artifacts/content-checks.ts: the scanner's own bounded readers), so that what is
 * accepted here is what the scan can read.
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
  const check = Object.hasOwn(ARTIFACT_CONTENT_CHECKS, record.purpose) ? ARTIFACT_CONTENT_CHECKS[record.purpose] : undefined;
  if (!check) return { status: 'rejected', sha256, reason: `no upload is accepted for purpose ${record.purpose}` };
  const problem = await check(record.filename, bytes);
  return problem === null ? { status: 'ready', sha256, reason: null } : { status: 'rejected', sha256, reason: problem };
}
