/** A pack's delta or object does not decode: the pack is corrupt (or hostile). */
export class CorruptPack extends Error {
  override readonly name = 'CorruptPack';
  constructor(detail: string) {
    super(`the pack is corrupt: ${detail}`);
  }
}

/** A little-endian base-128 size at `at` (git's delta header); returns the value and the next offset. */
function deltaSize(delta: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 1;
  let byte: number;
  do {
    if (at >= delta.length || shift > 2 ** 49) throw new CorruptPack('a delta header is cut');
    byte = delta[at++];
    value += (byte & 0x7f) * shift;
    shift *= 128;
  } while (byte & 0x80);
  return [value, at];
}

/** The size of the object a delta makes, from its header alone. */
export function deltaTargetSize(delta: Uint8Array): number {
  return deltaSize(delta, deltaSize(delta, 0)[1])[0];
}

/**
 * Applies one git delta (pack-format: copy-from-base and insert instructions) to `base`. Every
 * size and offset is checked against the base and the declared result, so a hostile pack cannot
 * read outside the base or write outside the result.
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Buffer {
  const [sourceSize, afterSource] = deltaSize(delta, 0);
  if (sourceSize !== base.length) throw new CorruptPack(`a delta expects a base of ${sourceSize} bytes, not ${base.length}`);
  const [targetSize, start] = deltaSize(delta, afterSource);
  // Not from the shared pool: a cached small result would pin a whole 8 KiB pool slab.
  const out = Buffer.allocUnsafeSlow(targetSize);
  let written = 0;
  let at = start;
  while (at < delta.length) {
    const op = delta[at++];
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit += 1) if (op & (1 << bit)) offset += delta[at++] * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit += 1) if (op & (0x10 << bit)) size += delta[at++] * 2 ** (8 * bit);
      if (size === 0) size = 0x10000;
      if (at > delta.length || offset + size > base.length || written + size > targetSize) {
        throw new CorruptPack('a delta copies outside its base or its result');
      }
      out.set(base.subarray(offset, offset + size), written);
      written += size;
    } else if (op !== 0) {
      if (at + op > delta.length || written + op > targetSize) throw new CorruptPack('a delta inserts past its end');
      out.set(delta.subarray(at, at + op), written);
      written += op;
      at += op;
    } else {
      throw new CorruptPack('a delta has a reserved instruction');
    }
  }
  if (written !== targetSize) throw new CorruptPack(`a delta makes ${written} bytes, not the ${targetSize} it declares`);
  return out;
}
