/**
 * Writing git's pack format by hand (pack-format.txt) for the tests and benches that serve a
 * repository no git would make: a pack object's header, and an object's id. The pkt-lines around
 * them are lib/git/pkt-line.ts's.
 */
import { createHash } from 'node:crypto';

/** A pack object's header: type and size, the size in little-endian 7-bit groups (4 bits first). */
export function objectHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1] |= 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

/** A git object's id (SHA-1 of `<type> <size>\0<content>`), as 20 bytes. */
export function objectIdBytes(type: string, content: Buffer): Buffer {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest();
}

/** The same id in hex. */
export const objectId = (type: string, content: Buffer): string => objectIdBytes(type, content).toString('hex');
