import { createGunzip, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { RuaInputError, type RuaLimits } from './limits.ts';

/** One XML document out of a report file: the file itself, a gzip member, or a zip entry. */
export interface XmlDocument {
  /** `report.zip:entry.xml` for archive entries, the file name otherwise. */
  name: string;
  /** The document's bytes in order, as decompressed: never concatenated into one 64 MiB buffer. */
  chunks: Buffer[];
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** An archive with no entries starts with its end-of-central-directory record. */
const EMPTY_ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/**
 * Splits a report file into XML documents by its leading bytes (not its name: reporters mislabel),
 * decompressing .gz and .zip within the limits. Nested archives are refused.
 */
export async function unpackReportFile(name: string, bytes: Buffer, limits: RuaLimits): Promise<XmlDocument[]> {
  if (bytes.length > limits.maxFileBytes)
    throw new RuaInputError(`file is ${bytes.length} bytes, over the ${limits.maxFileBytes}-byte limit`);
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC) || bytes.subarray(0, 4).equals(EMPTY_ZIP_MAGIC)) return unzip(name, bytes, limits);
  if (bytes.subarray(0, 2).equals(GZIP_MAGIC)) return [{ name, chunks: await gunzipBounded(bytes, limits) }];
  return [{ name, chunks: [bytes] }];
}

function tooLarge(limits: RuaLimits): RuaInputError {
  return new RuaInputError(`decompresses to more than ${limits.maxDecompressedBytes} bytes`);
}

function checkRatio(compressed: number, decompressed: number, limits: RuaLimits): void {
  if (decompressed >= limits.ratioCheckFromBytes && decompressed / Math.max(compressed, 1) > limits.maxCompressionRatio) {
    throw new RuaInputError(`compression ratio over ${limits.maxCompressionRatio}:1 (a decompression bomb)`);
  }
}

/**
 * Streams the gzip member into chunks and stops at the limit, so a gzip bomb costs at most the limit
 * in memory and time, and a large report is never held twice (gunzipSync's chunks and their concat).
 */
function gunzipBounded(bytes: Buffer, limits: RuaLimits): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip();
    const chunks: Buffer[] = [];
    let total = 0;
    const fail = (error: RuaInputError) => {
      gunzip.destroy();
      reject(error);
    };
    gunzip.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.maxDecompressedBytes) return fail(tooLarge(limits));
      try {
        checkRatio(bytes.length, total, limits);
      } catch (error) {
        return fail(error as RuaInputError);
      }
      if (chunks.length === 0 && (chunk.subarray(0, 2).equals(GZIP_MAGIC) || chunk.subarray(0, 4).equals(ZIP_MAGIC)))
        return fail(new RuaInputError('nested archives are refused'));
      chunks.push(chunk);
    });
    gunzip.on('error', (error) => fail(new RuaInputError(`not a valid gzip file: ${error.message}`)));
    gunzip.on('end', () => resolve(chunks));
    gunzip.end(bytes);
  });
}

function openZip(bytes: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (error, zip) => {
      if (error || !zip) reject(new RuaInputError(`not a valid zip file: ${error?.message ?? 'unreadable'}`));
      else resolve(zip);
    });
  });
}

/**
 * Reads entries one at a time. The declared sizes are checked before anything is inflated, and the
 * inflated output is capped again (a lying header cannot get past maxOutputLength).
 */
async function unzip(name: string, bytes: Buffer, limits: RuaLimits): Promise<XmlDocument[]> {
  const zip = await openZip(bytes);
  if (zip.entryCount > limits.maxArchiveEntries) {
    zip.close();
    throw new RuaInputError(`archive has ${zip.entryCount} entries, over the limit of ${limits.maxArchiveEntries}`);
  }
  const documents: XmlDocument[] = [];
  let total = 0;
  try {
    for (;;) {
      const entry = await nextEntry(zip);
      if (entry === null) break;
      if (entry.fileName.endsWith('/')) continue;
      if (entry.isEncrypted()) throw new RuaInputError(`entry ${entry.fileName} is encrypted`);
      const remaining = limits.maxDecompressedBytes - total;
      if (entry.uncompressedSize > remaining) throw tooLarge(limits);
      checkRatio(entry.compressedSize, entry.uncompressedSize, limits);
      const raw = await readRaw(zip, entry);
      let inflated: Buffer;
      if (entry.compressionMethod === 0) inflated = raw;
      else if (entry.compressionMethod === 8) {
        try {
          // One byte past the declared size is enough to catch a header that lies about it.
          inflated = inflateRawSync(raw, { maxOutputLength: Math.max(Math.min(remaining, entry.uncompressedSize + 1), 1) });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
            throw entry.uncompressedSize < remaining
              ? new RuaInputError(`entry ${entry.fileName} inflates past its declared ${entry.uncompressedSize} bytes`)
              : tooLarge(limits);
          }
          throw new RuaInputError(`entry ${entry.fileName} does not inflate: ${(error as Error).message}`);
        }
      } else throw new RuaInputError(`entry ${entry.fileName} uses unsupported compression method ${entry.compressionMethod}`);
      if (inflated.length !== entry.uncompressedSize)
        throw new RuaInputError(`entry ${entry.fileName} inflates to ${inflated.length} bytes, not the declared ${entry.uncompressedSize}`);
      total += inflated.length;
      checkRatio(entry.compressedSize, inflated.length, limits);
      if (inflated.subarray(0, 2).equals(GZIP_MAGIC) || inflated.subarray(0, 4).equals(ZIP_MAGIC))
        throw new RuaInputError(`entry ${entry.fileName}: nested archives are refused`);
      documents.push({ name: `${name}:${entry.fileName}`, chunks: [inflated] });
    }
  } finally {
    zip.close();
  }
  if (documents.length === 0) throw new RuaInputError('archive holds no file');
  return documents;
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: yauzl.Entry) => {
      cleanup();
      resolve(entry);
    };
    const onEnd = () => {
      cleanup();
      resolve(null);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new RuaInputError(`not a valid zip file: ${error.message}`));
    };
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/** The entry's stored bytes, not inflated: the compressed size is already bounded by the file's. */
function readRaw(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, { decodeFileData: false }, (error, stream) => {
      if (error || !stream) {
        reject(new RuaInputError(`entry ${entry.fileName} is unreadable: ${error?.message ?? 'no stream'}`));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (streamError) => reject(new RuaInputError(`entry ${entry.fileName} is unreadable: ${streamError.message}`)));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}
