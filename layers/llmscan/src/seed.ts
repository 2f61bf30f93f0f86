/**
 * Seeded draws: the same seed gives the same prompts, nonces and backoff delays, so a scan can be
 * repeated exactly and a finding reproduced by hand. Every draw is keyed by what it is for (the
 * probe's id and the repeat), not by the order the draws happen in, so concurrency cannot change it.
 */
import { createHash, randomInt } from 'node:crypto';

export function randomSeed(): number {
  return randomInt(0, 0xffff_ffff);
}

function digest(seed: number, key: string): Buffer {
  return createHash('sha256').update(`${seed}\0${key}`).digest();
}

/** A number in [0, 1) drawn for `key`. */
export function draw(seed: number, key: string): number {
  return digest(seed, key).readUInt32BE(0) / 0x1_0000_0000;
}

/** One of `items`, drawn for `key`. */
export function pick<T>(seed: number, key: string, items: readonly T[]): T {
  return items[Math.floor(draw(seed, key) * items.length)];
}

/** A stream of numbers in [0, 1) for `key` (the retry loop's jitter). */
export function drawer(seed: number, key: string): () => number {
  let n = 0;
  return () => draw(seed, `${key}#${n++}`);
}

const LETTERS = 'abcdefghjkmnpqrstuvwxyz23456789';

/**
 * The attempt's nonce: 12 lowercase letters and digits (a DNS label too), sent in two halves so
 * that it appears whole only when the model joins them: an answer that merely repeats the prompt
 * never holds it.
 */
export interface Nonce {
  value: string;
  left: string;
  right: string;
}

export function nonceFor(seed: number, key: string): Nonce {
  const bytes = digest(seed, `nonce\0${key}`);
  let value = '';
  for (let i = 0; i < 12; i += 1) value += LETTERS[bytes[i] % LETTERS.length];
  // A fixed first letter keeps it a valid host label and unlike any English word.
  value = `z${value.slice(1)}`;
  return { value, left: value.slice(0, 6), right: value.slice(6) };
}
