/**
 * A typed array of unbounded length in fixed chunks of 65,536 elements, each allocated on its first
 * write: what the pack reader and the history walk keep per object (issue 33 item 7). An array
 * grown by doubling held its old and new copies at once and up to twice what it used (two million
 * objects: ~60 MB of per-object arrays peaked near 100 MB); a chunk is never copied, at most one is
 * partly used, and a region never written (deltas in a pack that has few) costs nothing.
 */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

type TypedArray = Uint8Array | Uint16Array | Uint32Array | Int32Array;

export class ChunkedArray<T extends TypedArray> {
  private readonly chunks: (T | undefined)[] = [];

  /** `fill`: what an element never written reads as. */
  constructor(
    private readonly make: (length: number) => T,
    private readonly fill = 0,
  ) {}

  get(index: number): number {
    const chunk = this.chunks[index >>> CHUNK_BITS];
    return chunk === undefined ? this.fill : chunk[index & MASK];
  }

  set(index: number, value: number): void {
    let chunk = this.chunks[index >>> CHUNK_BITS];
    if (chunk === undefined) {
      chunk = this.make(CHUNK);
      if (this.fill !== 0) chunk.fill(this.fill);
      this.chunks[index >>> CHUNK_BITS] = chunk;
    }
    chunk[index & MASK] = value;
  }

  /** Bytes of the chunks allocated. */
  get byteLength(): number {
    let bytes = 0;
    for (const chunk of this.chunks) bytes += chunk?.byteLength ?? 0;
    return bytes;
  }

  clear(): void {
    this.chunks.length = 0;
  }
}

export const uint8s = (): ChunkedArray<Uint8Array> => new ChunkedArray((n) => new Uint8Array(n));
export const uint32s = (): ChunkedArray<Uint32Array> => new ChunkedArray((n) => new Uint32Array(n));
export const int32s = (fill = 0): ChunkedArray<Int32Array> => new ChunkedArray((n) => new Int32Array(n), fill);
export const uint16s = (): ChunkedArray<Uint16Array> => new ChunkedArray((n) => new Uint16Array(n));
