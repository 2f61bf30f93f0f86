import { monotonicFactory } from 'ulid';

/** Mints resource ids: a prefix plus a ULID, so ids sort by creation time. */
export interface IdGenerator {
  newId(prefix: 'sch' | 'scan' | 'fnd'): string;
}

export function makeUlidGenerator(now: () => number = Date.now): IdGenerator {
  const next = monotonicFactory();
  return { newId: (prefix) => `${prefix}_${next(now())}` };
}
