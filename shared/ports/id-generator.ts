import { createHash } from 'node:crypto';
import { encodeTime, monotonicFactory } from 'ulid';

/** Mints resource ids: a prefix plus a ULID, so ids sort by creation time. */
export interface IdGenerator {
  newId(prefix: 'sch' | 'scan' | 'fnd'): string;
  /**
   * The scan id of one cron fire, the same for every delivery of it: a ULID whose time is the
   * scheduled time and whose random part is a hash of (tenant, schedule, scheduled time). Creating
   * the job under it is the fire's claim, and it sorts among manual scans by when it was due.
   */
  forFire(tenant: string, scheduleId: string, scheduledTime: string): string;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

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
