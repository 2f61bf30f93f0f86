/**
 * Byte strings copied into a few large buffers, bounded in total: the pack reader keeps there the
 * inflated pack data of commits and trees (pack-store.ts). One buffer per 1 MiB of entries, not one
 * per entry: tens of thousands of small trees would otherwise cost a JS object and a backing store
 * each, more than their bytes.
 */
export class ByteArena {
  private readonly slabs: Buffer[] = [];
  /** Bytes used in the last slab. */
  private used = 0;
  /** 1 MiB, or the whole budget when it is smaller. */
  private readonly slabBytes: number;

  constructor(readonly maxBytes: number) {
    this.slabBytes = Math.max(0, Math.min(1 << 20, maxBytes));
  }

  /** Bytes of the slabs allocated. */
  get bytes(): number {
    return this.slabs.length * this.slabBytes;
  }

  /**
   * Copies `bytes` in and returns where they are (for `view`), or -1 when they are not kept: the
   * budget is spent, or the entry is over a quarter of a slab (it would waste the rest of one).
   */
  add(bytes: Uint8Array): number {
    if (this.slabBytes === 0 || bytes.length > this.slabBytes / 4) return -1;
    if (this.slabs.length === 0 || this.used + bytes.length > this.slabBytes) {
      if (this.bytes + this.slabBytes > this.maxBytes) return -1;
      this.slabs.push(Buffer.allocUnsafeSlow(this.slabBytes));
      this.used = 0;
    }
    const slab = this.slabs.length - 1;
    this.slabs[slab].set(bytes, this.used);
    const at = slab * this.slabBytes + this.used;
    this.used += bytes.length;
    return at;
  }

  /** The `length` bytes added at `at`: a view, valid until `clear`. */
  view(at: number, length: number): Buffer {
    const slab = Math.floor(at / this.slabBytes);
    const offset = at - slab * this.slabBytes;
    return this.slabs[slab].subarray(offset, offset + length);
  }

  clear(): void {
    this.slabs.length = 0;
    this.used = 0;
  }
}
