import { createHash } from 'node:crypto';
import { createReadStream, closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createInflate, inflateSync } from 'node:zlib';
import { ByteArena } from './byte-arena.ts';
import { ByteLru } from './byte-lru.ts';
import { int32s, uint32s, uint8s } from './chunked-array.ts';
import { applyDelta, CorruptPack, deltaTargetSize } from './delta.ts';
import { eventLoopTurns } from './event-loop-turns.ts';
import { OidIndex } from './oid-index.ts';
import { inflateSmall, InflateInvalid } from './small-inflate.ts';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';
const TYPE_NAMES: readonly (ObjectType | undefined)[] = [undefined, 'commit', 'tree', 'blob', 'tag'];
const COMMIT = 1;
const TREE = 2;
const BLOB = 3;
const OFS_DELTA = 6;
const REF_DELTA = 7;

export interface PackStoreOptions {
  /** Bytes of resolved objects kept as delta bases (least recently used first out). */
  cacheBytes: number;
  /**
   * Bytes of commits' and trees' inflated pack data (a whole object's content, or a delta's
   * instructions) kept from the indexing pass, in pack order until spent: the history walk reads
   * every commit and tree again, and those reads then need neither the file nor zlib.
   */
  keptBytes?: number;
  /**
   * Objects up to this size are resolved in memory. A larger whole object is hashed as a stream
   * and never held (only its id and size are known: the scan skips it as over the blob bound);
   * a larger delta, or a delta on a larger object, stops the scan with an error.
   */
  maxObjectBytes: number;
  signal: AbortSignal;
  /**
   * Called with each blob the indexing pass resolves (to hash it), before it is read again by id:
   * a look at every blob without inflating it twice (blob-triage.ts). Not called for an object over
   * maxObjectBytes (never held).
   */
  onBlob?: (ordinal: number, content: Uint8Array) => void;
}

/**
 * The pack file as it is written: the fetch appends to it while the pass reads behind it, so the
 * transfer (and the server's work) overlaps the indexing. `waitFor` settles once `received`
 * reaches the offset or the file is complete, and rejects when the transfer failed.
 */
export interface PackSource {
  readonly received: number;
  readonly done: boolean;
  waitFor(bytes: number): Promise<void>;
}

/** A pack file already complete on disk. */
function completeFile(size: number): PackSource {
  return { received: size, done: true, waitFor: () => Promise.resolve() };
}

/** An object the scan cannot resolve in bounded memory. */
export class ObjectTooLarge extends Error {
  override readonly name = 'ObjectTooLarge';
  constructor(size: number, limit: number) {
    super(`the pack holds a delta object of ${size} bytes, over the ${limit} bytes the scan resolves in memory`);
  }
}

export class ObjectNotFound extends Error {
  override readonly name = 'ObjectNotFound';
  constructor(oid: string) {
    super(`object ${oid} is not in the pack`);
  }
}

/** zlib's own worst case for `size` bytes (compressBound), and some: a first guess of a stream's length. */
function compressedGuess(size: number): number {
  return size + (size >> 12) + (size >> 14) + 64;
}

/**
 * What a cached object costs besides its bytes: its own ArrayBuffer (the JS object, V8's backing
 * store record, the malloc'd bytes), the Buffer view and the cache's entry. 100,000 live 25-byte
 * buffers took 83 MB of RSS in node 24, about 850 bytes each: charged as 1 KiB.
 */
const CACHE_ENTRY_OVERHEAD_BYTES = 1024;
/** Objects smaller than this are not cached as delta bases (see `remember`). */
const MIN_CACHED_BYTES = 256;

/** The largest compressed stream readAt reads into its reused buffer. */
const SCRATCH_BYTES = 1 << 20;
/** The pass's window on the file: reads of this size, into one buffer kept for the pass. */
const WINDOW_BYTES = 1 << 20;
/**
 * Objects up to this size are inflated in JavaScript (small-inflate.ts): 1.7–2 µs against node:zlib's
 * 5–6 µs a call, and no native handle (node 24 kept tens of MB of them resident in a micro-benchmark). Past
 * it, deflate's dynamic Huffman blocks make the JavaScript decoder the slower (13 µs at 256 bytes).
 */
const SMALL_OBJECT_BYTES = 128;
/** What the index holds per object, about (chunked arrays 9–13 bytes, the id index ~28). */
const INDEX_BYTES_PER_OBJECT = 40;
/**
 * The index the caches leave room for (400,000 objects). A pack declaring more gets caches smaller
 * by what its index takes past this, down to an eighth of their budgets: memory is one budget,
 * whatever the mix (two million objects: with a 32 MiB cache and 16 MiB of kept trees the peak was
 * ~40 MB over that with 8 and 8). The count is the server's word: a false one costs only speed.
 */
const INDEX_ALLOWANCE_BYTES = 16 * 1024 * 1024;

/** The delta-base cache's and the kept commits' and trees' budgets for a pack declaring `count` objects. */
export function cacheBudgets(count: number, cacheBytes: number, keptBytes: number): { cacheBytes: number; keptBytes: number } {
  const scale = Math.max(
    1 / 8,
    1 - Math.max(0, count * INDEX_BYTES_PER_OBJECT - INDEX_ALLOWANCE_BYTES) / Math.max(1, cacheBytes + keptBytes),
  );
  return { cacheBytes: Math.floor(cacheBytes * scale), keptBytes: Math.floor(keptBytes * scale) };
}
/** Sizes are kept in 32 bits: an object resolved in memory is smaller (a larger one is hashed as a stream). */
const MAX_IN_MEMORY = 2 ** 32 - 1;

function isTruncation(error: unknown): boolean {
  return (error as { code?: string }).code === 'Z_BUF_ERROR';
}

/**
 * A packfile on disk (as the server sent it, checksum verified), indexed by one sequential pass
 * (`index()`): each object inflated with node:zlib, deltas (OFS and REF) resolved against a base
 * cache bounded in bytes, each object hashed once for its id. What stays in memory is per object
 * a few numbers and its id; contents are read back by offset (`read()`), a delta's base from the
 * cache or, when it was evicted, re-read from the file (its header parsed again there). Per
 * object that is about 40 bytes: 9 in chunked typed arrays by ordinal (offset, type, size; a
 * delta's base 4 more) and about 30 in the id index, so two million tiny objects hold about 80 MB
 * (it was ~70 bytes an object, in arrays grown by doubling: 180 MB at the peak).
 */
export class PackStore {
  private readonly fd: number;
  private readonly source: PackSource;
  private cache: ByteLru<number>;
  private arena: ByteArena;
  private count = 0;
  /** Objects resolved in memory are at most this large (options.maxObjectBytes, kept to 32 bits). */
  private readonly maxInMemory: number;
  /**
   * Per object, in pack order: where its header starts (the zlib stream follows), modulo 4 GiB;
   * `wraps[k]` is the first ordinal at or past (k + 1) × 4 GiB.
   */
  private readonly offsets = uint32s();
  private readonly wraps: number[] = [];
  /** The pack type (1–4, 6 OFS, 7 REF) in the low three bits, the resolved type (1–4) above them. */
  private readonly kinds = uint8s();
  /** The resolved size (an object over maxInMemory: in `large`). */
  private readonly sizes = uint32s();
  /** A delta's base, as an ordinal (-1 until a REF_DELTA's base is known; no chunk where there is no delta). */
  private readonly bases = int32s(-1);
  /** Commits and trees whose inflated pack data the arena holds: their ordinals (ascending), where, how long. */
  private readonly keptOrdinals = uint32s();
  private readonly keptAt = uint32s();
  private readonly keptLengths = uint32s();
  /** Objects over maxInMemory: known by id and size only. */
  private readonly large = new Map<number, number>();
  private readonly ids = new OidIndex();
  private readonly pendingRefs = new Map<number, string>();

  private constructor(
    readonly path: string,
    private readonly options: PackStoreOptions,
    source: PackSource | undefined,
  ) {
    this.maxInMemory = Math.min(options.maxObjectBytes, MAX_IN_MEMORY);
    this.fd = openSync(path, 'r');
    this.source = source ?? completeFile(fstatSync(this.fd).size);
    this.cache = new ByteLru(options.cacheBytes, CACHE_ENTRY_OVERHEAD_BYTES);
    this.arena = new ByteArena(options.keptBytes ?? 0);
  }

  /** Where the objects end (the 20-byte trailer follows); unknown (infinite) while the file grows. */
  private get end(): number {
    return this.source.done ? this.source.received - 20 : Number.POSITIVE_INFINITY;
  }

  /**
   * Opens and indexes a pack file (its SHA-1 trailer checked); the caller closes it. With a
   * `source`, the file may still be growing: the pass waits for the bytes it needs.
   */
  static async open(path: string, options: PackStoreOptions, source?: PackSource): Promise<PackStore> {
    const store = new PackStore(path, options, source);
    try {
      await store.index();
      return store;
    } catch (error) {
      store.close();
      throw error;
    }
  }

  get objects(): number {
    return this.count;
  }

  /** Commits and trees whose inflated pack data the pass kept (`keptBytes`). */
  keptObjects = 0;

  /** The caches' budgets for this pack (smaller than asked for a pack of very many objects). */
  get budgets(): { cacheBytes: number; keptBytes: number } {
    return { cacheBytes: this.cache.maxBytes, keptBytes: this.arena.maxBytes };
  }

  close(): void {
    this.cache.clear();
    this.arena.clear();
    this.scratch = Buffer.alloc(0);
    closeSync(this.fd);
  }

  has(oid: string): boolean {
    return this.ids.get(oid) !== undefined;
  }

  /** The ordinal of `oid`, or undefined when the pack does not hold it. */
  find(oid: string): number | undefined {
    return this.ids.get(oid);
  }

  /** Pack order of an object (reading in this order finds delta bases in the cache). */
  ordinal(oid: string): number {
    const ordinal = this.ids.get(oid);
    if (ordinal === undefined) throw new ObjectNotFound(oid);
    return ordinal;
  }

  /** The id of the object at `ordinal` (hex). */
  oidOf(ordinal: number): string {
    if (!(ordinal >= 0 && ordinal < this.count)) throw new ObjectNotFound(`#${ordinal}`);
    return this.ids.hex(ordinal);
  }

  typeOf(oid: string): ObjectType {
    return TYPE_NAMES[this.typeAt(this.ordinal(oid))]!;
  }

  sizeOf(oid: string): number {
    return this.sizeAt(this.ordinal(oid));
  }

  /** Bytes of the per-object arrays and the id index (what grows with the object count). */
  get indexBytes(): number {
    return (
      this.offsets.byteLength +
      this.kinds.byteLength +
      this.sizes.byteLength +
      this.bases.byteLength +
      this.keptOrdinals.byteLength * 3 +
      this.ids.bytes
    );
  }

  private kindAt(ordinal: number): number {
    return this.kinds.get(ordinal) & 7;
  }

  private typeAt(ordinal: number): number {
    return this.kinds.get(ordinal) >> 3;
  }

  private sizeAt(ordinal: number): number {
    return this.large.get(ordinal) ?? this.sizes.get(ordinal);
  }

  private offsetAt(ordinal: number): number {
    let wrapped = 0;
    while (wrapped < this.wraps.length && this.wraps[wrapped] <= ordinal) wrapped += 1;
    return this.offsets.get(ordinal) + wrapped * 2 ** 32;
  }

  private setOffset(ordinal: number, position: number): void {
    while (this.wraps.length < Math.floor(position / 2 ** 32)) this.wraps.push(ordinal);
    this.offsets.set(ordinal, position % 2 ** 32);
  }

  /** Where the arena's copy of `ordinal` is listed (keptOrdinals), or -1. */
  private keptIndex(ordinal: number): number {
    let low = 0;
    let high = this.keptObjects - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const value = this.keptOrdinals.get(middle);
      if (value === ordinal) return middle;
      if (value < ordinal) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** The object's content, resolved; `expected` fails a type mismatch (a tree id that names a blob). */
  read(oid: string, expected?: ObjectType): Buffer {
    const ordinal = this.ordinal(oid);
    const type = TYPE_NAMES[this.typeAt(ordinal)];
    if (expected !== undefined && type !== expected) throw new CorruptPack(`${oid} is a ${type}, not a ${expected}`);
    if (this.large.has(ordinal)) throw new ObjectTooLarge(this.sizeAt(ordinal), this.maxInMemory);
    const content = this.resolve(ordinal);
    // A view, not a copy: callers only read (the cache shares it).
    return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  }

  /** The buffer readAt reads into, grown as needed. */
  private scratch = Buffer.alloc(0);

  /**
   * `length` bytes from `offset`, for a caller that uses them at once (inflate, a header): a view of
   * one buffer that the next call overwrites, so reading an object back allocates nothing (a rare
   * stream over SCRATCH_BYTES gets a buffer of its own, not kept).
   */
  private readAt(offset: number, length: number): Buffer {
    if (this.scratch.length < length && length <= SCRATCH_BYTES) this.scratch = Buffer.allocUnsafeSlow(Math.max(length, 64 * 1024));
    const buffer = length <= SCRATCH_BYTES ? this.scratch.subarray(0, length) : Buffer.allocUnsafeSlow(length);
    let done = 0;
    while (done < length) {
      const read = readSync(this.fd, buffer, done, length - done, offset + done);
      if (read === 0) throw new CorruptPack('the pack ends inside an object');
      done += read;
    }
    return buffer;
  }

  /**
   * The inflated stream of object `ordinal` (a whole object's content, or a delta's instructions),
   * from the arena or from the file: its header (checked by the pass) is read again for the size
   * and where the stream starts, rather than kept for every object.
   */
  private inflateAt(ordinal: number): Buffer {
    const kept = this.keptIndex(ordinal);
    if (kept >= 0) return this.arena.view(this.keptAt.get(kept), this.keptLengths.get(kept));
    const start = this.offsetAt(ordinal);
    const stop = ordinal + 1 < this.count ? this.offsetAt(ordinal + 1) : this.end;
    const bytes = this.readAt(start, stop - start);
    let at = 0;
    let byte = bytes[at++];
    const kind = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 16;
    while (byte & 0x80) {
      byte = bytes[at++];
      size += (byte & 0x7f) * shift;
      shift *= 128;
    }
    if (kind === OFS_DELTA) while (bytes[at++] & 0x80);
    else if (kind === REF_DELTA) at += 20;
    return this.inflate(bytes.subarray(at), size);
  }

  private inflate(compressed: Buffer, size: number): Buffer {
    if (size <= SMALL_OBJECT_BYTES) {
      try {
        const { bytes, consumed } = inflateSmall(compressed, size);
        this.consumed = consumed;
        return bytes;
      } catch (error) {
        // A cut stream (Z_BUF_ERROR, as node:zlib's) is the caller's to read further.
        if (error instanceof InflateInvalid) throw new CorruptPack(error.message);
        throw error;
      }
    }
    let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
    try {
      // The header's size bounds the output: an object that lies about it (a zlib bomb) stops at the lie.
      inflated = inflateSync(compressed, {
        info: true,
        chunkSize: Math.max(64, Math.min(size, 1 << 24)),
        maxOutputLength: Math.max(1, size),
      }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw new CorruptPack(`an object inflates past the ${size} bytes its header says`);
      throw error;
    }
    const { buffer, engine } = inflated;
    if (buffer.length !== size) throw new CorruptPack(`an object inflates to ${buffer.length} bytes, not the ${size} its header says`);
    this.consumed = engine.bytesWritten;
    return buffer;
  }

  /**
   * Caches an object's content as a delta base. A tiny one is not cached: re-reading it from the
   * file costs less than the buffer of its own it would need (about a kilobyte each; two million
   * tiny objects churned through the cache held hundreds of megabytes).
   */
  private remember(ordinal: number, content: Uint8Array): void {
    if (content.length < MIN_CACHED_BYTES) return;
    // A whole object the arena holds is read from there, inflated already: a copy would be twice its bytes.
    if (this.kindAt(ordinal) < OFS_DELTA && this.keptIndex(ordinal) >= 0) return;
    let own = content;
    if (content.buffer.byteLength > content.length * 2) {
      // zlib's small outputs are views of node's shared pool: a cached one would pin a whole slab.
      own = Buffer.allocUnsafeSlow(content.length);
      own.set(content);
    }
    this.cache.set(ordinal, own);
  }

  /** Compressed bytes the last inflate() used. */
  private consumed = 0;

  /** Resolves a chain of deltas from the nearest cached or whole object; every step is cached. */
  private resolve(ordinal: number): Uint8Array {
    const chain: number[] = [];
    let at = ordinal;
    let content = this.cache.get(at);
    while (content === undefined && this.kindAt(at) >= OFS_DELTA) {
      chain.push(at);
      at = this.bases.get(at);
      if (at < 0) throw new CorruptPack('a delta whose base is not in the pack');
      if (this.large.has(at)) throw new ObjectTooLarge(this.sizeAt(at), this.maxInMemory);
      content = this.cache.get(at);
    }
    if (content === undefined) {
      content = this.inflateAt(at);
      this.remember(at, content);
    }
    for (let step = chain.length - 1; step >= 0; step -= 1) {
      const delta = chain[step];
      content = applyDelta(content, this.inflateAt(delta));
      this.remember(delta, content);
    }
    return content;
  }

  private hash(ordinal: number, type: number, content: Uint8Array): void {
    const id = createHash('sha1').update(`${TYPE_NAMES[type]} ${content.length}\0`).update(content).digest();
    this.record(ordinal, type, content.length, id);
    if (type === BLOB) this.options.onBlob?.(ordinal, content);
  }

  private record(ordinal: number, type: number, size: number, id: Uint8Array): void {
    this.kinds.set(ordinal, this.kindAt(ordinal) | (type << 3));
    // A large object's size may pass 32 bits: `large` holds it.
    if (!this.large.has(ordinal)) this.sizes.set(ordinal, size);
    this.ids.add(ordinal, id);
  }

  /** Waits until the file holds `bytes` (or is complete). */
  private async need(bytes: number): Promise<void> {
    if (this.source.received < bytes && !this.source.done) await this.source.waitFor(bytes);
  }

  /** The one sequential pass: headers, inflation, delta resolution, ids. */
  private async index(): Promise<void> {
    await this.need(32);
    if (this.source.received < 32) throw new CorruptPack('too short to be a pack');
    const header = this.readAt(0, 12);
    if (header.toString('latin1', 0, 4) !== 'PACK') throw new CorruptPack('no PACK signature');
    const version = header.readUInt32BE(4);
    if (version !== 2 && version !== 3) throw new CorruptPack(`version ${version}`);
    const count = header.readUInt32BE(8);
    this.count = count;
    this.ids.reserve(count);
    const budgets = cacheBudgets(count, this.options.cacheBytes, this.options.keptBytes ?? 0);
    if (budgets.cacheBytes < this.cache.maxBytes) this.cache = new ByteLru(budgets.cacheBytes, CACHE_ENTRY_OVERHEAD_BYTES);
    if (budgets.keptBytes < this.arena.maxBytes) this.arena = new ByteArena(budgets.keptBytes);

    const window = new PackWindow(this.fd, this.source);
    let position = 12;
    const turn = eventLoopTurns();
    for (let ordinal = 0; ordinal < count; ordinal += 1) {
      if ((ordinal & 63) === 0 && (await turn())) this.options.signal.throwIfAborted();
      await this.need(position + 64);
      if (position >= this.end) throw new CorruptPack(`the pack ends after ${ordinal} of ${count} objects`);
      this.setOffset(ordinal, position);
      let head = window.bytes(position, 32);
      let at = 0;
      let byte = head[at++];
      const kind = (byte >> 4) & 7;
      let size = byte & 15;
      let shift = 16;
      while (byte & 0x80) {
        if (at >= head.length || shift > 2 ** 49) throw new CorruptPack('an object header is cut');
        byte = head[at++];
        size += (byte & 0x7f) * shift;
        shift *= 128;
      }
      if (kind === 0 || kind === 5) throw new CorruptPack(`object ${ordinal} has the unknown type ${kind}`);
      this.kinds.set(ordinal, kind);
      if (kind === OFS_DELTA) {
        if (at >= head.length) throw new CorruptPack('a delta offset is cut');
        byte = head[at++];
        let back = byte & 0x7f;
        while (byte & 0x80) {
          if (at >= head.length) throw new CorruptPack('a delta offset is cut');
          byte = head[at++];
          back = (back + 1) * 128 + (byte & 0x7f);
        }
        this.bases.set(ordinal, this.ordinalAt(position - back, ordinal));
      } else if (kind === REF_DELTA) {
        head = window.bytes(position, at + 20);
        if (head.length < at + 20) throw new CorruptPack('a delta base id is cut');
        const base = this.ids.find(head.subarray(at, at + 20));
        if (base === undefined) this.pendingRefs.set(ordinal, head.toString('hex', at, at + 20));
        else this.bases.set(ordinal, base);
        at += 20;
      }
      const dataStart = position + at;

      if (kind < OFS_DELTA && size > this.maxInMemory) {
        // Rare: read as a stream from the file once it is complete.
        await this.need(Number.POSITIVE_INFINITY);
        position = dataStart + (await this.hashLarge(ordinal, kind, size, dataStart));
        continue;
      }
      if (size > this.maxInMemory) throw new ObjectTooLarge(size, this.maxInMemory);
      const data = await this.inflateFromWindow(window, dataStart, size);
      position = dataStart + this.consumed;
      if (kind < OFS_DELTA) {
        this.hash(ordinal, kind, data);
        this.keep(ordinal, data);
        this.remember(ordinal, data);
      } else {
        const target = deltaTargetSize(data);
        if (target > this.maxInMemory) throw new ObjectTooLarge(target, this.maxInMemory);
        if (this.bases.get(ordinal) >= 0) {
          this.resolveDelta(ordinal, data);
          this.keep(ordinal, data);
        }
      }
    }
    await this.need(Number.POSITIVE_INFINITY);
    if (position !== this.end) throw new CorruptPack(`${this.end - position} bytes after the last object`);
    window.verify();
    await this.resolvePendingRefs(turn);
  }

  /** Keeps a commit's or a tree's inflated pack data (`data`: its content, or its delta) while the budget lasts. */
  private keep(ordinal: number, data: Uint8Array): void {
    const type = this.typeAt(ordinal);
    if (type !== COMMIT && type !== TREE) return;
    const at = this.arena.add(data);
    if (at < 0) return;
    // In pack order: ascending, for keptIndex's search.
    this.keptOrdinals.set(this.keptObjects, ordinal);
    this.keptAt.set(this.keptObjects, at);
    this.keptLengths.set(this.keptObjects, data.length);
    this.keptObjects += 1;
  }

  /** A delta met in the pass: its base resolved (cached, or re-read), applied, hashed, cached. */
  private resolveDelta(ordinal: number, delta: Buffer): void {
    const base = this.bases.get(ordinal);
    if (this.large.has(base)) throw new ObjectTooLarge(this.sizeAt(base), this.maxInMemory);
    const content = applyDelta(this.resolve(base), delta);
    this.remember(ordinal, content);
    this.hash(ordinal, this.typeAt(base), content);
  }

  /** REF_DELTAs whose base came later in the pack (or never): resolved now, or the pack is refused. */
  private async resolvePendingRefs(turn: () => Promise<boolean>): Promise<void> {
    while (this.pendingRefs.size > 0) {
      let progressed = false;
      for (const [ordinal, baseOid] of this.pendingRefs) {
        // Long work of its own (a pack of REF_DELTAs in reverse order): the deadline is checked inside it.
        if (await turn()) this.options.signal.throwIfAborted();
        const base = this.ids.get(baseOid);
        if (base === undefined) continue;
        this.bases.set(ordinal, base);
        this.pendingRefs.delete(ordinal);
        this.resolveDelta(ordinal, this.inflateAt(ordinal));
        progressed = true;
      }
      if (!progressed) throw new CorruptPack(`${this.pendingRefs.size} deltas on a base that is not in the pack (a thin pack)`);
    }
  }

  /** The ordinal of the object whose header starts at `offset` (an OFS_DELTA's base). */
  private ordinalAt(offset: number, before: number): number {
    let low = 0;
    let high = before - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const value = this.offsetAt(middle);
      if (value === offset) return middle;
      if (value < offset) low = middle + 1;
      else high = middle - 1;
    }
    throw new CorruptPack('a delta points at no object before it');
  }

  /** Inflates the stream at `start` from the pass's window, reading (or waiting) further when the guess was short. */
  private async inflateFromWindow(window: PackWindow, start: number, size: number): Promise<Buffer> {
    let want = compressedGuess(size);
    for (;;) {
      await this.need(start + want);
      const compressed = window.bytes(start, want);
      try {
        return this.inflate(compressed, size);
      } catch (error) {
        if (!isTruncation(error)) {
          throw error instanceof CorruptPack ? error : new CorruptPack(`an object does not inflate (${String((error as Error).message)})`);
        }
        if (this.source.done && start + compressed.length >= this.end) throw new CorruptPack('the pack ends inside an object');
        want *= 2;
      }
    }
  }

  /** A whole object over maxObjectBytes: inflated as a stream into the hash, never held. */
  private async hashLarge(ordinal: number, kind: number, size: number, start: number): Promise<number> {
    const hash = createHash('sha1').update(`${TYPE_NAMES[kind]} ${size}\0`);
    const inflater = createInflate();
    let inflated = 0;
    // Its own descriptor: the stream closes it when destroyed.
    const source = createReadStream(this.path, { start, end: this.end - 1, signal: this.options.signal });
    await new Promise<void>((resolve, reject) => {
      inflater.on('data', (chunk: Buffer) => {
        inflated += chunk.length;
        if (inflated > size) {
          inflater.destroy();
          return reject(new CorruptPack(`an object inflates past the ${size} bytes its header says`));
        }
        hash.update(chunk);
      });
      inflater.on('end', resolve);
      inflater.on('error', (error) => reject(new CorruptPack(`an object does not inflate (${error.message})`)));
      source.on('error', reject);
      source.pipe(inflater);
    });
    source.unpipe(inflater);
    source.destroy();
    if (inflated !== size) throw new CorruptPack(`an object inflates to ${inflated} bytes, not the ${size} its header says`);
    this.large.set(ordinal, size);
    this.record(ordinal, kind, size, hash.digest());
    return inflater.bytesWritten;
  }
}

/**
 * Sequential reads of the pack file through one buffer, hashing every byte once as the pass moves
 * forward: `verify()` at the end compares that SHA-1 with the pack's trailer. While the file grows,
 * its last 20 bytes may be the trailer, so hashing stays 20 bytes behind what was received.
 */
class PackWindow {
  private buffer = Buffer.alloc(0);
  /** What `buffer` views: one allocation for the pass, not one per load (the loads were garbage for GC to find). */
  private storage = Buffer.alloc(0);
  private start = 0;
  private readonly hash = createHash('sha1');
  private hashed = 0;

  constructor(
    private readonly fd: number,
    private readonly source: PackSource,
  ) {}

  private hashTo(stop: number): void {
    const limit = Math.min(stop, this.start + this.buffer.length, this.source.received - 20);
    if (limit <= this.hashed) return;
    this.hash.update(this.buffer.subarray(this.hashed - this.start, limit - this.start));
    this.hashed = limit;
  }

  /** Hashes what the pass did not read (nothing, in a well-formed pack) and checks the trailer. */
  verify(): void {
    const end = this.source.received - 20;
    while (this.hashed < end) {
      const before = this.hashed;
      this.bytes(this.hashed, end - this.hashed);
      if (this.hashed === before) throw new CorruptPack('the pack ends early');
    }
    const trailer = Buffer.alloc(20);
    if (readSync(this.fd, trailer, 0, 20, end) !== 20 || !this.hash.digest().equals(trailer)) {
      throw new CorruptPack('its SHA-1 trailer does not match its content');
    }
  }

  /** Up to `length` bytes from `offset` (fewer where the file ends). */
  bytes(offset: number, length: number): Buffer {
    const available = this.source.done ? this.source.received - 20 : this.source.received;
    const stop = Math.min(offset + length, available);
    if (offset < this.start || stop > this.start + this.buffer.length) {
      // Loads start at or before the first byte not yet hashed, so every byte is hashed exactly once.
      const from = Math.min(offset, this.hashed);
      const length = Math.max(0, Math.min(Math.max(stop - from, WINDOW_BYTES), available - from));
      // A load overwrites the last: callers use what `bytes` returns before they ask again. A
      // stream longer than the window (a large object) gets a buffer of its own, not kept.
      if (this.storage.length < length && length <= WINDOW_BYTES) this.storage = Buffer.allocUnsafeSlow(WINDOW_BYTES);
      const buffer = length <= WINDOW_BYTES ? this.storage.subarray(0, length) : Buffer.allocUnsafeSlow(length);
      let done = 0;
      while (done < buffer.length) {
        const read = readSync(this.fd, buffer, done, buffer.length - done, from + done);
        if (read === 0) break;
        done += read;
      }
      this.buffer = buffer.subarray(0, done);
      this.start = from;
    }
    this.hashTo(this.start + this.buffer.length);
    return this.buffer.subarray(offset - this.start, Math.max(offset - this.start, stop - this.start));
  }
}
