import { describe, expect, it } from 'vitest';
import { cacheBudgets } from '../../../lib/git/pack-store.ts';
import { BlobSightings } from '../src/sightings.ts';

describe('BlobSightings', () => {
  it('keeps each path of a blob once, oldest commit first, up to the bound, in pack order', () => {
    const sightings = new BlobSightings();
    const root = sightings.directory('');
    const docs = sightings.directory('docs/guide');
    sightings.startCommit('a'.repeat(40), '2020-01-01T00:00:00.000Z');
    expect(sightings.add(70_000, docs, 'setup.md', 3)).toBe('new');
    expect(sightings.add(5, root, 'README.md', 3)).toBe('new');
    sightings.startCommit('b'.repeat(40), '2021-01-01T00:00:00.000Z');
    sightings.startCommit('c'.repeat(40), '2022-01-01T00:00:00.000Z');
    // The same path again: kept as first seen (commit a).
    expect(sightings.add(70_000, docs, 'setup.md', 3)).toBe('kept');
    expect(sightings.add(70_000, root, 'setup.md', 3)).toBe('kept');
    const long = `${'é'.repeat(700)}.txt`;
    expect(sightings.add(70_000, root, long, 3)).toBe('kept');
    expect(sightings.add(70_000, root, 'fourth.md', 3)).toBe('dropped');
    expect(sightings.size).toBe(2);
    expect([...sightings.keys()]).toEqual([5, 70_000]);
    expect(sightings.has(6)).toBe(false);
    expect(sightings.get(6)).toBeUndefined();
    expect(sightings.get(70_000)).toEqual([
      { path: 'docs/guide/setup.md', commit: 'a'.repeat(40), authorDate: '2020-01-01T00:00:00.000Z' },
      { path: 'setup.md', commit: 'c'.repeat(40), authorDate: '2022-01-01T00:00:00.000Z' },
      { path: long, commit: 'c'.repeat(40), authorDate: '2022-01-01T00:00:00.000Z' },
    ]);
    expect(sightings.get(5)).toEqual([{ path: 'README.md', commit: 'a'.repeat(40), authorDate: '2020-01-01T00:00:00.000Z' }]);
  });

  it('holds a million one-file sightings in a few dozen megabytes', () => {
    const sightings = new BlobSightings();
    const directory = sightings.directory('d000001');
    sightings.startCommit('a'.repeat(40), '2020-01-01T00:00:00.000Z');
    for (let ordinal = 0; ordinal < 1_000_000; ordinal += 1) sightings.add(ordinal * 2, directory, `f${ordinal}.txt`, 64);
    expect(sightings.size).toBe(1_000_000);
    // Names run across the 1 MiB slabs' ends: every one reads back.
    for (let ordinal = 0; ordinal < 1_000_000; ordinal += 997) expect(sightings.get(ordinal * 2)![0].path).toBe(`d000001/f${ordinal}.txt`);
    expect(sightings.get(1_999_998)![0].path).toBe('d000001/f999999.txt');
    // Before: a Map entry, an object and a path string a blob (~100 bytes); 8 of these 22 are the ordinals' range, twice the blobs here.
    expect(sightings.bytes / 1_000_000).toBeLessThan(22);
  });
});

describe('cacheBudgets', () => {
  it('leaves the caches whole for an ordinary pack and gives their room to the index of a pack of millions of objects', () => {
    const MIB = 1024 * 1024;
    expect(cacheBudgets(12_621, 32 * MIB, 16 * MIB)).toEqual({ cacheBytes: 32 * MIB, keptBytes: 16 * MIB });
    expect(cacheBudgets(400_000, 32 * MIB, 16 * MIB)).toEqual({ cacheBytes: 32 * MIB, keptBytes: 16 * MIB });
    const between = cacheBudgets(1_000_000, 32 * MIB, 16 * MIB);
    expect(between.cacheBytes).toBeLessThan(32 * MIB);
    expect(between.cacheBytes).toBeGreaterThan(8 * MIB);
    expect(cacheBudgets(2_002_002, 32 * MIB, 16 * MIB)).toEqual({ cacheBytes: 4 * MIB, keptBytes: 2 * MIB });
    // A count the server made up costs speed, not correctness: never below an eighth.
    expect(cacheBudgets(2 ** 32 - 1, 32 * MIB, 16 * MIB)).toEqual({ cacheBytes: 4 * MIB, keptBytes: 2 * MIB });
  });
});
