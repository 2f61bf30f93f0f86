/**
 * zlib streams (RFC 1950 around RFC 1951) inflated in JavaScript, for the pack's small objects.
 * node:zlib's `inflateSync` makes a native zlib handle per call; on node 24, in a micro-benchmark,
 * 0.4–1.6 million calls on a one-line object left 45–70 MB more resident that a garbage
 * collection did not give back, and each call's fixed cost (5–6 µs) outweighs the inflation of a
 * few dozen bytes (issue 33 item 7: a pack of two million one-line files indexed in half the time). This decoder (after zlib's `contrib/puff`: canonical Huffman
 * codes decoded a bit at a time, which is quick enough for a few hundred bytes) allocates only its
 * output. The output is bounded by the size the object's header declares, and the Adler-32 trailer
 * is checked, so a stream it cannot read is an error, never other bytes.
 */

/** More input is needed (the same code node:zlib gives a cut stream). */
export class InflateTruncated extends Error {
  override readonly name = 'InflateTruncated';
  readonly code = 'Z_BUF_ERROR';
  constructor() {
    super('unexpected end of file');
  }
}

/** Not a zlib stream, or one that inflates to more than, or other than, it declares (the message says which, of "an object"). */
export class InflateInvalid extends Error {
  override readonly name = 'InflateInvalid';
  constructor(reason: string, whole = false) {
    super(whole ? reason : `an object does not inflate (${reason})`);
  }
}

const past = (size: number): InflateInvalid => new InflateInvalid(`an object inflates past the ${size} bytes its header says`, true);

const MAX_BITS = 15;
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
  24577,
];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** The order code-length code lengths are sent in. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman code: how many codes of each length, and the symbols in code order. */
interface Code {
  counts: Uint16Array;
  symbols: Uint16Array;
}

/** Builds `code` from the code lengths; returns how many codes are left unused (negative: over-subscribed). */
function build(code: Code, lengths: ArrayLike<number>, start: number, n: number): number {
  code.counts.fill(0);
  for (let symbol = 0; symbol < n; symbol += 1) code.counts[lengths[start + symbol]] += 1;
  if (code.counts[0] === n) return 0;
  let left = 1;
  for (let length = 1; length <= MAX_BITS; length += 1) {
    left = left * 2 - code.counts[length];
    if (left < 0) return left;
  }
  const offsets = new Uint16Array(MAX_BITS + 1);
  for (let length = 1; length < MAX_BITS; length += 1) offsets[length + 1] = offsets[length] + code.counts[length];
  for (let symbol = 0; symbol < n; symbol += 1) {
    const length = lengths[start + symbol];
    if (length !== 0) code.symbols[offsets[length]++] = symbol;
  }
  return left;
}

const fixed = ((): { lengths: Code; distances: Code } => {
  const lengths: Code = { counts: new Uint16Array(MAX_BITS + 1), symbols: new Uint16Array(288) };
  const distances: Code = { counts: new Uint16Array(MAX_BITS + 1), symbols: new Uint16Array(30) };
  const bits = new Uint8Array(288);
  bits.fill(8, 0, 144);
  bits.fill(9, 144, 256);
  bits.fill(7, 256, 280);
  bits.fill(8, 280, 288);
  build(lengths, bits, 0, 288);
  build(distances, new Uint8Array(30).fill(5), 0, 30);
  return { lengths, distances };
})();

class Decoder {
  private at: number;
  private bitBuffer = 0;
  private bitCount = 0;
  written = 0;

  constructor(
    private readonly input: Uint8Array,
    start: number,
    readonly output: Buffer,
  ) {
    this.at = start;
  }

  get position(): number {
    return this.at;
  }

  bits(need: number): number {
    let value = this.bitBuffer;
    while (this.bitCount < need) {
      if (this.at >= this.input.length) throw new InflateTruncated();
      value |= this.input[this.at++] << this.bitCount;
      this.bitCount += 8;
    }
    this.bitBuffer = value >>> need;
    this.bitCount -= need;
    return value & ((1 << need) - 1);
  }

  /** Drops the bits left in the current byte. */
  align(): void {
    this.bitBuffer = 0;
    this.bitCount = 0;
  }

  byte(): number {
    if (this.at >= this.input.length) throw new InflateTruncated();
    return this.input[this.at++];
  }

  stored(): void {
    this.align();
    const length = this.byte() | (this.byte() << 8);
    const complement = this.byte() | (this.byte() << 8);
    if (length !== (~complement & 0xffff)) throw new InflateInvalid('a stored block whose length does not check');
    if (this.written + length > this.output.length) throw past(this.output.length);
    if (this.at + length > this.input.length) throw new InflateTruncated();
    this.output.set(this.input.subarray(this.at, this.at + length), this.written);
    this.at += length;
    this.written += length;
  }

  decode(code: Code): number {
    let bits = 0;
    let first = 0;
    let index = 0;
    for (let length = 1; length <= MAX_BITS; length += 1) {
      bits |= this.bits(1);
      const count = code.counts[length];
      if (bits - count < first) return code.symbols[index + (bits - first)];
      index += count;
      first = (first + count) << 1;
      bits <<= 1;
    }
    throw new InflateInvalid('an invalid Huffman code');
  }

  codes(lengths: Code, distances: Code): void {
    const out = this.output;
    for (;;) {
      let symbol = this.decode(lengths);
      if (symbol < 256) {
        if (this.written >= out.length) throw past(this.output.length);
        out[this.written++] = symbol;
      } else if (symbol === 256) {
        return;
      } else {
        symbol -= 257;
        if (symbol >= 29) throw new InflateInvalid('an invalid length code');
        const length = LENGTH_BASE[symbol] + this.bits(LENGTH_EXTRA[symbol]);
        const distanceSymbol = this.decode(distances);
        if (distanceSymbol >= 30) throw new InflateInvalid('an invalid distance code');
        const distance = DISTANCE_BASE[distanceSymbol] + this.bits(DISTANCE_EXTRA[distanceSymbol]);
        if (distance > this.written) throw new InflateInvalid('a distance too far back');
        if (this.written + length > out.length) throw past(this.output.length);
        for (let copied = 0; copied < length; copied += 1) {
          out[this.written] = out[this.written - distance];
          this.written += 1;
        }
      }
    }
  }

  dynamic(): void {
    const literals = this.bits(5) + 257;
    const distanceCount = this.bits(5) + 1;
    const codeLengthCount = this.bits(4) + 4;
    if (literals > 286 || distanceCount > 30) throw new InflateInvalid('too many length or distance codes');
    const lengths = new Uint8Array(316);
    for (let index = 0; index < codeLengthCount; index += 1) lengths[CODE_LENGTH_ORDER[index]] = this.bits(3);
    const lengthCode: Code = { counts: new Uint16Array(MAX_BITS + 1), symbols: new Uint16Array(316) };
    if (build(lengthCode, lengths, 0, 19) !== 0) throw new InflateInvalid('an incomplete code-length code');
    let index = 0;
    while (index < literals + distanceCount) {
      const symbol = this.decode(lengthCode);
      if (symbol < 16) {
        lengths[index++] = symbol;
        continue;
      }
      let value = 0;
      let repeat: number;
      if (symbol === 16) {
        if (index === 0) throw new InflateInvalid('a repeat with no length before it');
        value = lengths[index - 1];
        repeat = 3 + this.bits(2);
      } else if (symbol === 17) repeat = 3 + this.bits(3);
      else repeat = 11 + this.bits(7);
      if (index + repeat > literals + distanceCount) throw new InflateInvalid('too many code lengths');
      lengths.fill(value, index, index + repeat);
      index += repeat;
    }
    if (lengths[256] === 0) throw new InflateInvalid('no end-of-block code');
    const lengthsCode: Code = { counts: new Uint16Array(MAX_BITS + 1), symbols: new Uint16Array(286) };
    let left = build(lengthsCode, lengths, 0, literals);
    // An incomplete code is allowed only when it is a single code of length 1 (as zlib and puff).
    if (left < 0 || (left > 0 && literals !== lengthsCode.counts[0] + lengthsCode.counts[1])) {
      throw new InflateInvalid('an invalid literal/length code');
    }
    const distancesCode: Code = { counts: new Uint16Array(MAX_BITS + 1), symbols: new Uint16Array(30) };
    left = build(distancesCode, lengths, literals, distanceCount);
    if (left < 0 || (left > 0 && distanceCount !== distancesCode.counts[0] + distancesCode.counts[1])) {
      throw new InflateInvalid('an invalid distance code');
    }
    this.codes(lengthsCode, distancesCode);
  }
}

/**
 * Inflates the zlib stream at the start of `input` into exactly `size` bytes: returns them and how
 * many bytes of `input` the stream took (Adler-32 included). Throws InflateTruncated when `input`
 * ends inside the stream, InflateInvalid when it is not a zlib stream of `size` bytes.
 */
export function inflateSmall(input: Uint8Array, size: number): { bytes: Buffer; consumed: number } {
  if (input.length < 2) throw new InflateTruncated();
  const method = input[0];
  const flags = input[1];
  if ((method & 0x0f) !== 8 || method >> 4 > 7 || (method * 256 + flags) % 31 !== 0) throw new InflateInvalid('not a zlib stream');
  if (flags & 0x20) throw new InflateInvalid('a zlib stream with a preset dictionary');
  const decoder = new Decoder(input, 2, Buffer.allocUnsafe(size));
  let last: number;
  do {
    last = decoder.bits(1);
    const type = decoder.bits(2);
    if (type === 0) decoder.stored();
    else if (type === 1) decoder.codes(fixed.lengths, fixed.distances);
    else if (type === 2) decoder.dynamic();
    else throw new InflateInvalid('an invalid block type');
  } while (last === 0);
  decoder.align();
  const output = decoder.output;
  if (decoder.written !== size) {
    throw new InflateInvalid(`an object inflates to ${decoder.written} bytes, not the ${size} its header says`, true);
  }
  let a = 1;
  let b = 0;
  for (let at = 0; at < size; at += 1) {
    a += output[at];
    b += a;
    // Far below 2^53 between reductions: reduce every 4096 bytes (b grows by at most 255 × 4096² / 2 per run).
    if ((at & 4095) === 4095) {
      a %= 65521;
      b %= 65521;
    }
  }
  a %= 65521;
  b %= 65521;
  const expected = (decoder.byte() * 0x1000000 + (decoder.byte() << 16)) | (decoder.byte() << 8) | decoder.byte();
  if (((b << 16) | a) >>> 0 !== expected >>> 0) throw new InflateInvalid('its Adler-32 does not match');
  return { bytes: output, consumed: decoder.position };
}
