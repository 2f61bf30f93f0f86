/**
 * Archives built in memory for tests, including decompression bombs generated at test time (never
 * committed): repeating one sync-flushed deflate block of zeros yields a valid stream of N MiB of
 * zeros from N KiB of input, so a 1 GiB bomb costs about 1 MiB to build.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

const MIB = 1024 * 1024;

/** A raw deflate stream of `mebibytes` MiB of zeros, with its CRC-32. */
export function deflatedZeros(mebibytes: number): { deflated: Buffer; size: number; crc: number } {
  const zeros = Buffer.alloc(MIB);
  const block = deflateRawSync(zeros, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const final = deflateRawSync(Buffer.alloc(0));
  let crc = 0;
  for (let i = 0; i < mebibytes; i++) crc = crc32(zeros, crc);
  return { deflated: Buffer.concat([...Array.from({ length: mebibytes }, () => block), final]), size: mebibytes * MIB, crc };
}

/** A gzip file whose member inflates to `mebibytes` MiB of zeros. */
export function gzipBomb(mebibytes: number): Buffer {
  const { deflated, size, crc } = deflatedZeros(mebibytes);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  return Buffer.concat([header, deflated, trailer]);
}

export interface ZipEntryInput {
  name: string;
  /** Stored deflated; `declaredSize` overrides the uncompressed size written in the headers (a lying header). */
  data?: Buffer;
  deflated?: { deflated: Buffer; size: number; crc: number };
  declaredSize?: number;
}

/** A minimal zip (deflate entries, no zip64) written from scratch. */
export function zipOf(entries: ZipEntryInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const body = entry.deflated ?? {
      deflated: deflateRawSync(entry.data ?? Buffer.alloc(0)),
      size: entry.data?.length ?? 0,
      crc: crc32(entry.data ?? Buffer.alloc(0)),
    };
    const size = Math.min(entry.declaredSize ?? body.size, 0xfffffffe);
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(body.crc >>> 0, 14);
    local.writeUInt32LE(body.deflated.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(body.crc >>> 0, 16);
    central.writeUInt32LE(body.deflated.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body.deflated);
    centrals.push(central, name);
    offset += local.length + name.length + body.deflated.length;
  }
  const centralBytes = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralBytes, end]);
}
