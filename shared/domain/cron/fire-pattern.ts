import { dayOfWeek, nextDay, type CivilDate } from './calendar.ts';
import { firesOnDay, type CronFields } from './cron-fields.ts';

// Weekdays and leap years repeat every 28 years between 1901 and 2099, so scanning one such cycle
// sees every (date, weekday) combination a 5-field crontab can depend on, 29 February included.
const SCAN_START: CivilDate = { year: 2001, month: 1, day: 1 };
const SCAN_DAYS = 28 * 365 + 7;
const MINUTES_PER_DAY = 24 * 60;

/** Whether the union of the expressions has no fire in a whole 28-year calendar cycle. */
export function neverFires(expressions: readonly CronFields[]): boolean {
  return !scanDays(expressions).firesAtAll;
}

/**
 * Whether two consecutive fires of the union of the expressions can be less than `minutes` apart,
 * on wall-clock time: within a day, across an hour boundary, and across midnight when two
 * consecutive days fire.
 */
export function firesMoreOftenThan(expressions: readonly CronFields[], minutes: number): boolean {
  const times = timesOfDay(expressions);
  if (times.length === 0) return false;
  for (let i = 1; i < times.length; i++) if (times[i] - times[i - 1] < minutes) return true;
  const acrossMidnight = MINUTES_PER_DAY - times[times.length - 1] + times[0];
  return acrossMidnight < minutes && scanDays(expressions).firesOnConsecutiveDays;
}

function timesOfDay(expressions: readonly CronFields[]): number[] {
  const times = new Set<number>();
  for (const fields of expressions) {
    for (const hour of fields.hours) for (const minute of fields.minutes) times.add(hour * 60 + minute);
  }
  return [...times].sort((a, b) => a - b);
}

function scanDays(expressions: readonly CronFields[]): { firesAtAll: boolean; firesOnConsecutiveDays: boolean } {
  let date = SCAN_START;
  let weekday = dayOfWeek(date);
  let firedYesterday = false;
  let firesAtAll = false;
  for (let i = 0; i < SCAN_DAYS; i++) {
    const fires = expressions.some((f) => firesOnDay(f, date.year, date.month, date.day, weekday));
    if (fires && firedYesterday) return { firesAtAll: true, firesOnConsecutiveDays: true };
    firesAtAll ||= fires;
    firedYesterday = fires;
    date = nextDay(date);
    weekday = (weekday + 1) % 7;
  }
  return { firesAtAll, firesOnConsecutiveDays: false };
}
