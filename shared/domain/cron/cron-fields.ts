/**
 * The value sets of one EventBridge `cron(...)` expression: the common model between the crontab
 * converter (which emits it) and the evaluator (which parses it back). Arrays are sorted and
 * without duplicates.
 */
export interface CronFields {
  minutes: readonly number[];
  hours: readonly number[];
  /** 1–31; `null` is EventBridge's `?`. */
  daysOfMonth: readonly number[] | null;
  /** 1–12. */
  months: readonly number[];
  /** 0 = Sunday … 6 = Saturday (Vixie numbering, not EventBridge's SUN=1); `null` is `?`. */
  daysOfWeek: readonly number[] | null;
  /** `null` is `*`. */
  years: readonly number[] | null;
}

export const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;

/** Index = Vixie day-of-week number. */
export const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

/** Whether a civil date (with its day of week) is one of the days the fields fire on. */
export function firesOnDay(fields: CronFields, year: number, month: number, day: number, weekday: number): boolean {
  if (!fields.months.includes(month)) return false;
  if (fields.years !== null && !fields.years.includes(year)) return false;
  if (fields.daysOfMonth !== null) return fields.daysOfMonth.includes(day);
  return fields.daysOfWeek !== null && fields.daysOfWeek.includes(weekday);
}

/** One field of a cron syntax: its range and, for month and day of week, its names. */
export interface FieldSpec {
  label: string;
  min: number;
  max: number;
  /** Lower-case names; a name's value is its index plus `nameBase`. */
  names?: readonly string[];
  nameBase?: number;
}

/**
 * A sorted value list as cron text: runs of three or more as `a-b`, the rest listed. One
 * definition for every writer of cron fields (EventBridge, the chat prompt, the celery mapping).
 */
export function formatRuns(values: readonly number[], show: (value: number) => string = String): string {
  const items: string[] = [];
  for (let start = 0; start < values.length;) {
    let end = start;
    while (end + 1 < values.length && values[end + 1] === values[end] + 1) end++;
    if (end - start >= 2) items.push(`${show(values[start])}-${show(values[end])}`);
    else for (let i = start; i <= end; i++) items.push(show(values[i]));
    start = end + 1;
  }
  return items.join(',');
}
