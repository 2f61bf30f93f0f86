import { randomBytes } from 'node:crypto';
import { constants, deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateSmall, InflateInvalid, InflateTruncated } from '../../../lib/git/small-inflate.ts';

/** A deterministic source of small, varied contents: text-like, repetitive, random, empty. */
function* samples(): Generator<Buffer> {
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0);
  const words = ['token', 'ghp_', '=', 'secret', '\n', ' ', 'a', 'AAAA', '{"key": "', 'file 12 holds line 12'];
  yield Buffer.alloc(0);
  yield Buffer.from('x');
  for (let n = 0; n < 400; n += 1) {
    const size = next() % 700;
    const kind = n % 4;
    if (kind === 0) yield randomBytes(size);
    else if (kind === 1) yield Buffer.alloc(size, next() & 0xff);
    else {
      let text = '';
      while (text.length < size) text += words[next() % words.length];
      yield Buffer.from(text.slice(0, size));
    }
  }
}

describe('inflateSmall', () => {
  it('inflates what node:zlib deflates, at every level and strategy, to the same bytes and stream length', () => {
    let streams = 0;
    for (const content of samples()) {
      for (const options of [
        { level: 0 },
        { level: 1 },
        { level: 6 },
        { level: 9 },
        { level: 6, strategy: constants.Z_FIXED },
        { level: 6, strategy: constants.Z_HUFFMAN_ONLY },
        { level: 6, strategy: constants.Z_RLE },
      ]) {
        const stream = deflateSync(content, options);
        // What follows the stream in a pack (the next object) is not read.
        const input = Buffer.concat([stream, randomBytes(7)]);
        const { bytes, consumed } = inflateSmall(input, content.length);
        expect(bytes.equals(content)).toBe(true);
        expect(consumed).toBe(stream.length);
        streams += 1;
      }
    }
    expect(streams).toBeGreaterThan(2800);
  });

  it('says a cut stream is cut, at every cut', () => {
    const content = Buffer.from('a line of text, and another line of text, and a token ghp_1234\n'.repeat(4));
    for (const options of [{ level: 0 }, { level: 6 }]) {
      const stream = deflateSync(content, options);
      for (let cut = 0; cut < stream.length; cut += 1) {
        expect(() => inflateSmall(stream.subarray(0, cut), content.length)).toThrow(InflateTruncated);
        // node:zlib agrees: the same code.
        expect(() => inflateSync(stream.subarray(0, cut))).toThrow(expect.objectContaining({ code: 'Z_BUF_ERROR' }));
      }
    }
  });

  it('refuses more or fewer bytes than declared, a bad checksum, a bad header, and damaged streams', () => {
    const content = Buffer.from('file 1 holds line 1\n'.repeat(20));
    const stream = deflateSync(content);
    expect(() => inflateSmall(stream, content.length - 1)).toThrow(
      `an object inflates past the ${content.length - 1} bytes its header says`,
    );
    expect(() => inflateSmall(stream, content.length + 1)).toThrow(`an object inflates to ${content.length} bytes`);
    const badSum = Buffer.from(stream);
    badSum[badSum.length - 1] ^= 1;
    expect(() => inflateSmall(badSum, content.length)).toThrow('its Adler-32 does not match');
    expect(() => inflateSmall(Buffer.from([0x78, 0x00, 0, 0]), 0)).toThrow('not a zlib stream');
    expect(() => inflateSmall(Buffer.from([0x78, 0xbb, 0, 0, 0, 0]), 0)).toThrow('a preset dictionary');
    // Every single-bit flip in the deflate data: an error, or (rarely) other bytes whose checksum then fails; never a silent success.
    let refused = 0;
    for (let at = 2; at < stream.length - 4; at += 1) {
      for (let bit = 0; bit < 8; bit += 1) {
        const damaged = Buffer.from(stream);
        damaged[at] ^= 1 << bit;
        let result: Buffer | undefined;
        try {
          result = inflateSmall(damaged, content.length).bytes;
        } catch (error) {
          expect(error instanceof InflateInvalid || error instanceof InflateTruncated).toBe(true);
          refused += 1;
          continue;
        }
        // Accepted only where node:zlib accepts it too, with the same bytes.
        expect(result.equals(inflateSync(damaged))).toBe(true);
      }
    }
    expect(refused).toBeGreaterThan(0);
  });
});
