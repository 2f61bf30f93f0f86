import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/canonical-json.ts';

/** The canonical form the stored fingerprints hashed (shared/domain/finding.ts): keys in localeCompare's order. */
function byLocaleCompare(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(byLocaleCompare).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${byLocaleCompare(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A fixed pseudo-random sequence (a linear congruential generator), so a failure can be replayed. */
function* numbers(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    yield state / 2 ** 31;
  }
}

describe('canonicalJson', () => {
  it('orders snake_case keys as localeCompare does, without asking ICU', () => {
    const random = numbers(32);
    const next = (): number => random.next().value as number;
    // Underscores often, so that keys differ at an underscore against a letter.
    const key = (): string => Array.from({ length: 1 + Math.floor(next() * 6) }, () => 'ab_xyz'[Math.floor(next() * 6)] ?? 'a').join('');
    for (let round = 0; round < 2_000; round += 1) {
      const evidence = Object.fromEntries(Array.from({ length: 1 + Math.floor(next() * 6) }, () => [key(), { [key()]: [key()] }]));
      expect(canonicalJson(evidence)).toBe(byLocaleCompare(evidence));
    }
  });

  it("keeps localeCompare's order for keys with capitals or digits, where code units order them otherwise", () => {
    const evidence = { B: 1, a: 2, a1: 3, a_: 4, MX: { b: 1, A: 2 } };

    expect(canonicalJson(evidence)).toBe(byLocaleCompare(evidence));
    expect(canonicalJson(evidence)).toBe('{"a":2,"a_":4,"a1":3,"B":1,"MX":{"A":2,"b":1}}');
  });
});
