/** Mints resource ids: a prefix plus a ULID, so ids sort by creation time (shared/domain/ids.ts). */
export interface IdGenerator {
  newId(prefix: 'sch' | 'scan' | 'fnd' | 'run' | 'art' | 'ntf' | 'exp'): string;
  /**
   * The scan id of one cron fire, the same for every delivery of it: a ULID whose time is the
   * scheduled time and whose random part is a hash of (tenant, schedule, scheduled time). Creating
   * the job under it is the fire's claim, and it sorts among manual scans by when it was due.
   */
  forFire(tenant: string, scheduleId: string, scheduledTime: string): string;
}
