import { dayOfWeek, nextDay, type CivilDate } from './calendar.ts';
import { firesOnDay, type CronFields } from './cron-fields.ts';
import { parseEventBridgeCron } from './eventbridge-parser.ts';
import { firstInstantOfWallTime, wallTimeAt } from './time-zone.ts';

export { parseEventBridgeCron } from './eventbridge-parser.ts';

// 29 February alone fires at most 8 years apart (2096 → 2104); beyond 9 years nothing will.
const HORIZON_DAYS = 9 * 366;
// No zone is more than 14 hours from UTC, so a wall time this far before `after` cannot follow it.
const MAX_OFFSET_MS = 15 * 3_600_000;
const CACHE_LIMIT = 512;
const parsed = new Map<string, CronFields>();

/**
 * The first fire of an EventBridge `cron(...)` expression strictly after `after`, evaluated on the
 * wall clock of the IANA `timezone`, or null when it never fires again. Daylight saving time
 * follows EventBridge Scheduler: a wall time skipped by a spring-forward change does not fire that
 * day, and a wall time repeated by a fall-back change fires once, at its first occurrence.
 * Throws RangeError for an expression it cannot parse or an unknown time zone.
 */
export function nextFireTime(expression: string, timezone: string, after: Date): Date | null {
  const fields = fieldsOf(expression);
  const afterMs = after.getTime();
  const start = wallTimeAt(afterMs, timezone);
  let date: CivilDate = { year: start.year, month: start.month, day: start.day };
  let weekday = dayOfWeek(date);
  // Days are visited in wall order and, within a day, times ascending; the earliest instant of a
  // wall time grows with the wall time, so the first candidate after `after` is the answer.
  for (let i = 0; i < HORIZON_DAYS; i++) {
    if (firesOnDay(fields, date.year, date.month, date.day, weekday)) {
      const fire = firstFireOnDay(fields, date, timezone, afterMs);
      if (fire !== null) return new Date(fire);
    }
    date = nextDay(date);
    weekday = (weekday + 1) % 7;
  }
  return null;
}

/** The earliest {@link nextFireTime} of several expressions (a split trigger), or null if none fires. */
export function nextFireTimeOf(expressions: readonly string[], timezone: string, after: Date): Date | null {
  let earliest: Date | null = null;
  for (const expression of expressions) {
    const fire = nextFireTime(expression, timezone, after);
    if (fire !== null && (earliest === null || fire < earliest)) earliest = fire;
  }
  return earliest;
}

function firstFireOnDay(fields: CronFields, date: CivilDate, timezone: string, afterMs: number): number | null {
  for (const hour of fields.hours) {
    const hourMs = Date.UTC(date.year, date.month - 1, date.day, hour);
    if (hourMs + 3_600_000 + MAX_OFFSET_MS <= afterMs) continue;
    for (const minute of fields.minutes) {
      const wallMs = hourMs + minute * 60_000;
      if (wallMs + MAX_OFFSET_MS <= afterMs) continue;
      const instant = firstInstantOfWallTime(wallMs, timezone);
      if (instant !== null && instant > afterMs) return instant;
    }
  }
  return null;
}

function fieldsOf(expression: string): CronFields {
  let fields = parsed.get(expression);
  if (fields === undefined) {
    fields = parseEventBridgeCron(expression);
    // Expressions come from stored schedules; the bound only guards against unbounded growth.
    if (parsed.size >= CACHE_LIMIT) parsed.clear();
    parsed.set(expression, fields);
  }
  return fields;
}
