interface Entry<K, V> {
  key: K;
  value: V;
  newer: Entry<K, V> | undefined;
  older: Entry<K, V> | undefined;
}

/**
 * A least-recently-used cache bounded by bytes: the pack reader's delta bases. An entry larger
 * than a quarter of the budget is not kept (it would evict everything for one read). A map to
 * the entries of a doubly linked list, so a hit and an eviction cost O(1) (a Map's own order
 * would need an iterator from the oldest entry, which walks over every deleted slot before it).
 * `entryOverheadBytes` is charged per entry besides its bytes: a cache of tiny objects is mostly
 * overhead (a buffer object and a list entry each), and counting only their bytes let a 32 MiB
 * budget hold a million 25-byte blobs in about 400 MB (issue 33 item 7).
 */
export class ByteLru<K, V extends { readonly byteLength: number } = Uint8Array> {
  private readonly entries = new Map<K, Entry<K, V>>();
  private newest: Entry<K, V> | undefined;
  private oldest: Entry<K, V> | undefined;
  private held = 0;

  constructor(
    readonly maxBytes: number,
    private readonly entryOverheadBytes = 0,
  ) {}

  get bytes(): number {
    return this.held;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.unlink(entry);
    this.pushNewest(entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    if (value.byteLength > this.maxBytes / 4) return;
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.unlink(known);
      this.entries.delete(key);
      this.held -= known.value.byteLength + this.entryOverheadBytes;
    }
    const entry: Entry<K, V> = { key, value, newer: undefined, older: undefined };
    this.entries.set(key, entry);
    this.pushNewest(entry);
    this.held += value.byteLength + this.entryOverheadBytes;
    while (this.held > this.maxBytes && this.oldest !== undefined) {
      const evicted = this.oldest;
      this.unlink(evicted);
      this.entries.delete(evicted.key);
      this.held -= evicted.value.byteLength + this.entryOverheadBytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.newest = undefined;
    this.oldest = undefined;
    this.held = 0;
  }

  private pushNewest(entry: Entry<K, V>): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest !== undefined) this.newest.newer = entry;
    this.newest = entry;
    this.oldest ??= entry;
  }

  private unlink(entry: Entry<K, V>): void {
    if (entry.newer !== undefined) entry.newer.older = entry.older;
    else this.newest = entry.older;
    if (entry.older !== undefined) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    entry.newer = undefined;
    entry.older = undefined;
  }
}
