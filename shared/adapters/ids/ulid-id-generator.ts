import { createHash } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';
import type { IdGenerator } from '../../ports/id-generator.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Ids as a prefix plus a monotonic ULID: they sort by creation time, even within one millisecond. */
export function makeUlidGenerator(now: () => number = Date.now): IdGenerator {
  const next = monotonicFactory();
  return {
    newId: (prefix) => `${prefix}_${next(now())}`,
    forFire(tenant, scheduleId, scheduledTime) {
      const digest = createHash('sha256').update(`${tenant}\n${scheduleId}\n${scheduledTime}`).digest();
      // 16 base-32 characters = 80 bits, the ULID's random part.
      const random = Array.from({ length: 16 }, (_, i) => CROCKFORD[digest[i] % 32]).join('');
      return `scan_${encodeTime(Date.parse(scheduledTime), 10)}${random}`;
    },
  };
}
