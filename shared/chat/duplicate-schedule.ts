/** The fields that make two schedules the same recurring scan (DESIGN §8: the chat's duplicate warning). */
export interface ScheduleShape {
  scan_type: string;
  target: string;
  cadence: string;
  cron_expression?: string | null;
  timezone?: string;
}

/** Whitespace-insensitive crontab: `30  9 * * 1-5` and `30 9 * * 1-5` fire alike. */
const crontab = (value: string | null | undefined) => (value ?? '').trim().replace(/\s+/g, ' ');

/**
 * The first of `schedules` with the same scan type, target and cadence as `wanted` (for a custom
 * cadence, the same crontab in the same zone), or undefined. Names and scopes are not compared:
 * two rows that fire the same scan at the same times are a duplicate whatever they are called.
 */
export function findDuplicateSchedule<S extends ScheduleShape>(wanted: ScheduleShape, schedules: ReadonlyArray<S>): S | undefined {
  return schedules.find(
    (schedule) =>
      schedule.scan_type === wanted.scan_type &&
      schedule.target.toLowerCase() === wanted.target.toLowerCase() &&
      schedule.cadence === wanted.cadence &&
      (wanted.cadence !== 'custom' ||
        (crontab(schedule.cron_expression) === crontab(wanted.cron_expression) &&
          (schedule.timezone ?? 'UTC') === (wanted.timezone ?? 'UTC'))),
  );
}
