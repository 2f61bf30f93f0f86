/**
 * A least-recently-used cache bounded by bytes: the pack reader's delta bases. An entry larger
 * than a quarter of the budget is not kept (it would evict everything for one read).
 */
export class ByteLru<K> {
  private readonly entries = new Map<K, Uint8Array>();
  private held = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.held;
  }

  get(key: K): Uint8Array | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: Uint8Array): void {
    if (value.length > this.maxBytes / 4) return;
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.held -= known.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.held += value.length;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.held -= entry.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }
}
