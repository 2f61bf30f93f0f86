/**
 * Object ids to pack ordinals in about 30 bytes an object: the 20-byte ids side by side in chunks
 * of 65,536 (by ordinal) and an open-addressing table of ordinals (linear probing, at most half
 * full, or three quarters when sized from the pack's count). A `Map<string, number>` of hex ids cost about 100 bytes an object (a 40-character string
 * and a map entry each): two million tiny objects held 200 MB in ids alone (issue 33 item 7). The
 * ids are chunked, not one buffer grown by doubling, which held the old and the new buffer at once
 * (two million ids: 63 MB at the last growth for 40 MB of ids).
 */
const ID_BYTES = 20;
const CHUNK_BITS = 16;
const CHUNK_IDS = 1 << CHUNK_BITS;
const MASK = CHUNK_IDS - 1;
/** The table is grown (doubled) past this load; linear probing stays short below it. */
const MAX_LOAD = 0.75;
/** `reserve` sizes the table for at most this many objects (the count it is given is the server's word). */
const MAX_RESERVED = 1 << 22;

export class OidIndex {
  private readonly chunks: Uint8Array[] = [];
  /** Ordinal + 1 per slot; 0 is empty. */
  private slots = new Int32Array(1024);
  private held = 0;
  private readonly probe = Buffer.alloc(ID_BYTES);

  /** Objects indexed (distinct ids). */
  get size(): number {
    return this.held;
  }

  /** Bytes of the buffers (what the index holds, whatever the count). */
  get bytes(): number {
    return this.chunks.length * CHUNK_IDS * ID_BYTES + this.slots.byteLength;
  }

  /** Records `id` (20 bytes) for `ordinal`; an id seen before keeps its first ordinal. */
  add(ordinal: number, id: Uint8Array): void {
    while (this.chunks.length <= ordinal >>> CHUNK_BITS) this.chunks.push(new Uint8Array(CHUNK_IDS * ID_BYTES));
    this.chunks[ordinal >>> CHUNK_BITS].set(id.subarray(0, ID_BYTES), (ordinal & MASK) * ID_BYTES);
    if (this.find(id) !== undefined) return;
    if (this.held + 1 > this.slots.length * MAX_LOAD) this.resize(this.slots.length * 2);
    this.insert(ordinal);
    this.held += 1;
  }

  /**
   * Sizes the table for `count` objects at once (the pack's declared count, at most MAX_RESERVED):
   * no growth on the way, and a table a third larger than its ids, not twice to four times (two
   * million objects: 10.7 MB, was 16.8).
   */
  reserve(count: number): void {
    const slots = Math.ceil(Math.min(count, MAX_RESERVED) / MAX_LOAD) + 1;
    if (slots > this.slots.length) this.resize(slots);
  }

  /** The ordinal of a 20-byte id, if indexed. */
  find(id: Uint8Array): number | undefined {
    const size = this.slots.length;
    for (let slot = this.home(this.start(id, 0)); ; slot = slot + 1 === size ? 0 : slot + 1) {
      const value = this.slots[slot];
      if (value === 0) return undefined;
      if (this.equals(value - 1, id)) return value - 1;
    }
  }

  /** The ordinal of a hex id, if indexed. */
  get(hex: string): number | undefined {
    if (hex.length !== ID_BYTES * 2) return undefined;
    if (this.probe.write(hex, 'hex') !== ID_BYTES) return undefined;
    return this.find(this.probe);
  }

  /** The id of `ordinal` as hex (ordinals below the highest one added). */
  hex(ordinal: number): string {
    const chunk = this.chunks[ordinal >>> CHUNK_BITS];
    return Buffer.from(chunk.buffer, chunk.byteOffset + (ordinal & MASK) * ID_BYTES, ID_BYTES).toString('hex');
  }

  private start(id: Uint8Array, at: number): number {
    // SHA-1 ids are uniform: their first four bytes are a hash already.
    return ((id[at] << 24) | (id[at + 1] << 16) | (id[at + 2] << 8) | id[at + 3]) >>> 0;
  }

  private equals(ordinal: number, id: Uint8Array): boolean {
    const chunk = this.chunks[ordinal >>> CHUNK_BITS];
    const at = (ordinal & MASK) * ID_BYTES;
    for (let i = 0; i < ID_BYTES; i += 1) if (chunk[at + i] !== id[i]) return false;
    return true;
  }

  /** The first slot to look at for a hash: the table's size need not be a power of two. */
  private home(hash: number): number {
    return Math.floor((hash / 2 ** 32) * this.slots.length);
  }

  private insert(ordinal: number): void {
    const size = this.slots.length;
    let slot = this.home(this.start(this.chunks[ordinal >>> CHUNK_BITS], (ordinal & MASK) * ID_BYTES));
    while (this.slots[slot] !== 0) slot = slot + 1 === size ? 0 : slot + 1;
    this.slots[slot] = ordinal + 1;
  }

  private resize(slots: number): void {
    const old = this.slots;
    this.slots = new Int32Array(slots);
    for (const value of old) if (value !== 0) this.insert(value - 1);
  }
}
