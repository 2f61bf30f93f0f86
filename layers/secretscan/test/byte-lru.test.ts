import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../../lib/git/byte-lru.ts';

const bytes = (n: number): Uint8Array => new Uint8Array(n);

describe('ByteLru', () => {
  it('keeps at most its budget, evicting the least recently used first', () => {
    const cache = new ByteLru<string>(100);
    cache.set('a', bytes(20));
    cache.set('b', bytes(20));
    cache.set('c', bytes(20));
    expect(cache.get('a')).toBeDefined(); // a is now the newest
    cache.set('d', bytes(20));
    cache.set('e', bytes(20));
    expect(cache.bytes).toBe(100);
    cache.set('f', bytes(20)); // evicts b, the least recently used
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd', 'e', 'f'].every((key) => cache.get(key) !== undefined)).toBe(true);
    expect(cache.bytes).toBe(100);
  });

  it('replaces a key in place and refuses an entry over a quarter of the budget', () => {
    const cache = new ByteLru<number>(100);
    cache.set(1, bytes(10));
    cache.set(1, bytes(20));
    expect(cache.bytes).toBe(20);
    cache.set(2, bytes(26));
    expect(cache.get(2)).toBeUndefined();
    cache.clear();
    expect(cache.bytes).toBe(0);
    expect(cache.get(1)).toBeUndefined();
  });

  it('stays within budget through many random operations', () => {
    const cache = new ByteLru<number>(1000);
    const sizes = new Map<number, number>();
    let seed = 1;
    const random = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
    for (let step = 0; step < 20_000; step += 1) {
      const key = random(200);
      if (random(3) === 0) cache.get(key);
      else {
        const size = 1 + random(250);
        cache.set(key, bytes(size));
        sizes.set(key, size);
      }
      expect(cache.bytes).toBeLessThanOrEqual(1000);
    }
    let held = 0;
    for (const [key, size] of sizes) if (cache.get(key) !== undefined) held += cache.get(key)!.length === size ? size : Number.NaN;
    expect(held).toBe(cache.bytes);
  });
});

describe('ByteLru with an overhead per entry', () => {
  it('charges each entry its overhead, so tiny entries cannot outnumber the budget', () => {
    const cache = new ByteLru<number>(10_000, 256);
    for (let key = 0; key < 1000; key += 1) cache.set(key, bytes(25));
    // 10,000 / (25 + 256) = 35 entries fit, where 400 would by their bytes alone.
    expect([...Array(1000).keys()].filter((key) => cache.get(key) !== undefined)).toHaveLength(35);
    expect(cache.bytes).toBe(35 * 281);
  });
});
