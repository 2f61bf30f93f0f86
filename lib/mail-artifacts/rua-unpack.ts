import { setImmediate as nextTurn } from 'node:timers/promises';
import { createGunzip, createInflateRaw, type Gunzip, type InflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { RuaInputError, type RuaLimits } from './rua-limits.ts';

/** One XML document out of a report file: the file itself, a gzip member, or a zip entry. */
export interface XmlDocument {
  /** `report.zip:entry.xml` for archive entries, the file name otherwise. */
  name: string;
  /**
   * The document's bytes in order, decompressed as they are read (at most 1 MiB at a time, never
   * the whole document): a bound crossed while reading is thrown from the iterator as a
   * RuaInputError. Leaving the loop early leaves the rest to `readReportFile`, which still reads it.
   */
  chunks: AsyncIterable<Buffer>;
}

/**
 * Reads one document: `read` consumes its chunks as they are decompressed. It may stop early or
 * throw; the rest is still decompressed (and dropped) afterwards, so the file's bounds hold
 * whatever the reader did, and a bound crossed anywhere fails the whole file.
 */
export type DocumentReader = (document: XmlDocument) => Promise<void>;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** An archive with no entries starts with its end-of-central-directory record. */
const EMPTY_ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
/** Plain and stored bytes are handed out this much at a time, with a turn of the event loop between. */
const SLICE = 1024 * 1024;

/**
 * Splits a report file into XML documents by its leading bytes (not its name: reporters mislabel)
 * and hands each to `read` as it is decompressed, within the limits: one document at a time, so a
 * report is never held decompressed. Nested archives are refused. Throws a RuaInputError when the
 * file crosses a bound (or `signal`, the scan's deadline, fires while it is read); the reader's own
 * error is thrown after the bounds are checked, which come first.
 */
export async function readReportFile(
  name: string,
  bytes: Buffer,
  limits: RuaLimits,
  read: DocumentReader,
  signal?: AbortSignal,
): Promise<void> {
  if (bytes.length > limits.maxFileBytes)
    throw new RuaInputError(`file is ${bytes.length} bytes, over the ${limits.maxFileBytes}-byte limit`);
  if (bytes.subarray(0, 4).equals(ZIP_MAGIC) || bytes.subarray(0, 4).equals(EMPTY_ZIP_MAGIC))
    return unzip(name, bytes, limits, read, signal);
  if (bytes.subarray(0, 2).equals(GZIP_MAGIC)) return deliver(name, gunzipBounded(bytes, limits), read, signal);
  return deliver(name, slices(bytes), read, signal);
}

/**
 * Runs `read` over one document's chunks, then reads what it left. The chunks' own error (a bound,
 * a corrupt stream, the deadline) wins over the reader's, which may only be its consequence.
 */
async function deliver(
  name: string,
  source: AsyncGenerator<Buffer, unknown>,
  read: DocumentReader,
  signal: AbortSignal | undefined,
): Promise<void> {
  let sourceError: { error: unknown } | null = null;
  const next = async (): Promise<IteratorResult<Buffer, unknown>> => {
    if (sourceError !== null) throw sourceError.error;
    try {
      if (signal?.aborted) throw new RuaInputError('the scan deadline was reached before the file was read to its end');
      return await source.next();
    } catch (error) {
      sourceError = { error };
      throw error;
    }
  };
  // No `return` on the iterator: a reader that stops early does not end the source, which is read below.
  const chunks: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => ({ next }) };
  let readerError: { error: unknown } | null = null;
  try {
    try {
      await read({ name, chunks });
    } catch (error) {
      readerError = { error };
    }
    if (sourceError === null) for (let result = await next(); !result.done; result = await next());
  } catch (error) {
    if (sourceError === null) throw error;
  } finally {
    await source.return(undefined);
  }
  if (sourceError !== null) throw (sourceError as { error: unknown }).error;
  if (readerError !== null) throw readerError.error;
}

/** A buffer at most SLICE bytes at a time, letting the event loop (the deadline's timer) run between. */
async function* slices(bytes: Buffer): AsyncGenerator<Buffer, void> {
  for (let offset = 0; offset < bytes.length; offset += SLICE) {
    if (offset > 0) await nextTurn();
    yield bytes.subarray(offset, offset + SLICE);
  }
}

function tooLarge(limits: RuaLimits): RuaInputError {
  return new RuaInputError(`decompresses to more than ${limits.maxDecompressedBytes} bytes`);
}

function checkRatio(compressed: number, decompressed: number, limits: RuaLimits): void {
  if (decompressed >= limits.ratioCheckFromBytes && decompressed / Math.max(compressed, 1) > limits.maxCompressionRatio) {
    throw new RuaInputError(`compression ratio over ${limits.maxCompressionRatio}:1 (a decompression bomb)`);
  }
}

function isArchive(chunk: Buffer): boolean {
  return chunk.subarray(0, 2).equals(GZIP_MAGIC) || chunk.subarray(0, 4).equals(ZIP_MAGIC);
}

/** Inflates `input` through `inflater` chunk by chunk as the consumer asks for them (zlib's own backpressure). */
async function* inflate(inflater: Gunzip | InflateRaw, input: Buffer, corrupt: (message: string) => string): AsyncGenerator<Buffer, void> {
  inflater.end(input);
  try {
    yield* inflater as AsyncIterable<Buffer>;
  } catch (error) {
    throw new RuaInputError(corrupt((error as Error).message));
  } finally {
    inflater.destroy();
  }
}

/**
 * Hands out `source`'s chunks, calling `check` with each chunk and the running total before
 * handing it out, so a bomb stops at the first chunk past a bound and costs at most that much.
 * Returns the total.
 */
async function* bounded(
  source: AsyncGenerator<Buffer, void>,
  check: (chunk: Buffer, total: number) => void,
): AsyncGenerator<Buffer, number> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    check(chunk, total);
    yield chunk;
  }
  return total;
}

/** Gzip (every member) streamed within the decompressed-size and ratio bounds. */
function gunzipBounded(bytes: Buffer, limits: RuaLimits): AsyncGenerator<Buffer, number> {
  return bounded(
    inflate(createGunzip(), bytes, (message) => `not a valid gzip file: ${message}`),
    (chunk, total) => {
      if (total > limits.maxDecompressedBytes) throw tooLarge(limits);
      checkRatio(bytes.length, total, limits);
      if (total === chunk.length && isArchive(chunk)) throw new RuaInputError('nested archives are refused');
    },
  );
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
 * inflated output is counted as it streams (a lying header is caught one byte past its size).
 */
async function unzip(name: string, bytes: Buffer, limits: RuaLimits, read: DocumentReader, signal?: AbortSignal): Promise<void> {
  const zip = await openZip(bytes);
  if (zip.entryCount > limits.maxArchiveEntries) {
    zip.close();
    throw new RuaInputError(`archive has ${zip.entryCount} entries, over the limit of ${limits.maxArchiveEntries}`);
  }
  let total = 0;
  let documents = 0;
  try {
    for (;;) {
      const entry = await nextEntry(zip);
      if (entry === null) break;
      if (entry.fileName.endsWith('/')) continue;
      if (entry.isEncrypted()) throw new RuaInputError(`entry ${entry.fileName} is encrypted`);
      const remaining = limits.maxDecompressedBytes - total;
      if (entry.uncompressedSize > remaining) throw tooLarge(limits);
      checkRatio(entry.compressedSize, entry.uncompressedSize, limits);
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
        throw new RuaInputError(`entry ${entry.fileName} uses unsupported compression method ${entry.compressionMethod}`);
      const raw = await readRaw(zip, entry);
      await deliver(`${name}:${entry.fileName}`, entryChunks(entry, raw, remaining, limits), read, signal);
      // The entry inflated to exactly its declared size (entryChunks checks), which was within the bound.
      total += entry.uncompressedSize;
      documents += 1;
    }
  } finally {
    zip.close();
  }
  if (documents === 0) throw new RuaInputError('archive holds no file');
}

/** A zip entry's bytes, stored or inflated, holding the entry to its declared size exactly. */
async function* entryChunks(entry: yauzl.Entry, raw: Buffer, remaining: number, limits: RuaLimits): AsyncGenerator<Buffer, void> {
  const declared = entry.uncompressedSize;
  const check = (chunk: Buffer, total: number) => {
    if (total > declared)
      throw declared < remaining
        ? new RuaInputError(`entry ${entry.fileName} inflates past its declared ${declared} bytes`)
        : tooLarge(limits);
    if (total === chunk.length && isArchive(chunk)) throw new RuaInputError(`entry ${entry.fileName}: nested archives are refused`);
  };
  const chunks =
    entry.compressionMethod === 0
      ? slices(raw)
      : inflate(createInflateRaw(), raw, (message) => `entry ${entry.fileName} does not inflate: ${message}`);
  const total = yield* bounded(chunks, check);
  if (total !== declared) throw new RuaInputError(`entry ${entry.fileName} inflates to ${total} bytes, not the declared ${declared}`);
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
