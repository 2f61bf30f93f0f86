import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OidIndex } from '../../../lib/git/oid-index.ts';

const id = (n: number): Buffer => createHash('sha1').update(String(n)).digest();

describe('OidIndex', () => {
  it('finds every id it was given, by bytes and by hex, through its growth', () => {
    const index = new OidIndex();
    for (let n = 0; n < 50_000; n += 1) index.add(n, id(n));
    expect(index.size).toBe(50_000);
    const wrong = [0, 1, 777, 49_999].filter((n) => index.find(id(n)) !== n || index.get(id(n).toString('hex')) !== n);
    expect(wrong).toEqual([]);
    expect(index.hex(777)).toBe(id(777).toString('hex'));
    expect(index.get(id(50_000).toString('hex'))).toBeUndefined();
    expect(index.get('not hex')).toBeUndefined();
  });

  it('keeps the first ordinal of an id met twice', () => {
    const index = new OidIndex();
    index.add(0, id(1));
    index.add(1, id(2));
    index.add(2, id(1));
    expect(index.find(id(1))).toBe(0);
    expect(index.size).toBe(2);
  });

  it('sized from a declared count: a table a third larger than the ids, every id found, wrapping at its end', () => {
    const index = new OidIndex();
    index.reserve(100_003);
    const table = index.bytes;
    for (let n = 0; n < 100_003; n += 1) index.add(n, id(n));
    // No growth on the way: the same table, about 5.3 bytes an object.
    expect(index.bytes - 2 * 65_536 * 20).toBe(table);
    expect(table / 100_003).toBeLessThan(5.4);
    const wrong = [];
    for (let n = 0; n < 100_003; n += 1) if (index.find(id(n)) !== n) wrong.push(n);
    expect(wrong).toEqual([]);
    expect(index.find(id(100_003))).toBeUndefined();
    // Past the count it grows as before.
    for (let n = 100_003; n < 160_000; n += 1) index.add(n, id(n));
    expect(index.find(id(159_999))).toBe(159_999);
  });

  it('holds about 30 bytes an object, where a map of hex ids held about 100', () => {
    const index = new OidIndex();
    for (let n = 0; n < 200_000; n += 1) index.add(n, id(n));
    expect(index.bytes / 200_000).toBeLessThan(40);
  });
});
