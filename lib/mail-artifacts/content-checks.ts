import { HEADER_LIMITS, HeaderInputError } from './header-limits.ts';
import { readHeaderFields } from './message-header.ts';
import { RUA_LIMITS, RuaInputError } from './rua-limits.ts';
import { readReportFile } from './rua-unpack.ts';

/**
 * Whether an uploaded file's bytes are of the kind its purpose says (DESIGN §4), judged with the
 * scanner's own bounded readers, so what the service accepts is what the scan can read: the
 * reason it is not, or null. Shared by the service's artifact check and mailscan (which reads
 * the same files), so it lives here; `ARTIFACT_CONTENT_CHECKS` maps a purpose to its check.
 */
export type ContentCheck = (filename: string, bytes: Buffer) => Promise<string | null>;

/** A DMARC aggregate report: XML, zip or gzip of DMARC XML (bombs and nested archives refused). */
const aggregateReport: ContentCheck = async (filename, bytes) => {
  try {
    // Each document's head decides; readReportFile still decompresses the rest within the bounds.
    await readReportFile(filename, bytes, RUA_LIMITS, async (document) => {
      const head = (await headOf(document.chunks, HEAD_BYTES))
        .toString('utf8')
        .replace(/^\uFEFF/, '')
        .trimStart();
      if (!head.startsWith('<')) throw new RuaInputError(`${document.name}: not XML`);
      if (!/<([A-Za-z_][\w.-]*:)?feedback[\s>]/.test(head))
        throw new RuaInputError(`${document.name}: not a DMARC aggregate report (no <feedback> root)`);
    });
  } catch (error) {
    if (error instanceof RuaInputError) return error.message;
    throw error;
  }
  return null;
};

/** An RFC 5322 message: its header fields read within the bounds. */
const message: ContentCheck = async (_filename, bytes) => {
  try {
    readHeaderFields(bytes, HEADER_LIMITS);
  } catch (error) {
    if (error instanceof HeaderInputError) return error.message;
    throw error;
  }
  return null;
};

/** The check of each upload purpose. */
export const ARTIFACT_CONTENT_CHECKS: Readonly<Record<string, ContentCheck>> = { rua: aggregateReport, eml: message };

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
