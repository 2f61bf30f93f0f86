import { describe, expect, it } from 'vitest';
import { ByteArena } from '../../../lib/git/byte-arena.ts';

describe('ByteArena', () => {
  it('gives back what was added, across slabs, until its budget is spent', () => {
    const arena = new ByteArena(4096);
    const added: [number, Buffer][] = [];
    for (let n = 0; ; n += 1) {
      const bytes = Buffer.alloc(100 + (n % 7) * 50, n & 255);
      const at = arena.add(bytes);
      if (at === -1) break;
      added.push([at, bytes]);
    }
    // 4096 bytes in one slab: entries up to its quarter, never over the budget.
    expect(added.length).toBeGreaterThan(10);
    expect(arena.bytes).toBeLessThanOrEqual(4096);
    for (const [at, bytes] of added) expect(arena.view(at, bytes.length).equals(bytes)).toBe(true);
    expect(arena.add(Buffer.alloc(1024))).toBe(-1);
  });

  it('keeps no entry over a quarter of a slab, and nothing with no budget', () => {
    expect(new ByteArena(4096).add(Buffer.alloc(1025))).toBe(-1);
    expect(new ByteArena(4096).add(Buffer.alloc(1024))).toBe(0);
    expect(new ByteArena(0).add(Buffer.alloc(0))).toBe(-1);
    expect(new ByteArena(0).add(Buffer.alloc(10))).toBe(-1);
  });

  it('starts a new slab when an entry does not fit the last one', () => {
    const arena = new ByteArena(3 << 20);
    const first = arena.add(Buffer.alloc((1 << 20) - 10, 1));
    expect(first).toBe(-1); // over a quarter of a slab
    const entries = [0, 1, 2, 3, 4].map((n) => [arena.add(Buffer.alloc(250_000, n)), n] as const);
    expect(entries.every(([at]) => at >= 0)).toBe(true);
    expect(arena.bytes).toBe(2 << 20);
    for (const [at, n] of entries) expect(arena.view(at, 250_000).every((byte) => byte === n)).toBe(true);
  });
});
