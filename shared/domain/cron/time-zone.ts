/**
 * Wall-clock time in IANA time zones through Intl.DateTimeFormat (no time zone library is
 * installed, and Intl carries the same tz database as the runtime).
 */

/** A wall-clock reading, all fields as numbers (month 1–12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether `timeZone` is an IANA time zone name the runtime knows ('UTC' included; offsets like '+05:30' are not names). */
export function isValidTimeZone(timeZone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(timeZone)) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock reading of an instant in `timeZone`. Throws RangeError for an unknown zone. */
export function wallTimeAt(instantMs: number, timeZone: string): WallTime {
  if (isUtc(timeZone)) return wallTimeOfUtc(instantMs);
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instantMs)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
  };
}

/**
 * The earliest instant whose wall-clock reading in `timeZone` is `wallMs` (a wall time encoded as
 * if it were UTC), or null when the wall time does not exist (skipped by a spring-forward change).
 */
export function firstInstantOfWallTime(wallMs: number, timeZone: string): number | null {
  if (isUtc(timeZone)) return wallMs;
  // Offsets a day either side bracket any single transition near the wall time; each candidate is
  // kept only if it reads back as the wall time (the approach of the Temporal polyfill).
  const candidates = [offsetAt(wallMs - DAY_MS, timeZone), offsetAt(wallMs + DAY_MS, timeZone)]
    .map((offset) => wallMs - offset)
    .filter((instant) => instant + offsetAt(instant, timeZone) === wallMs)
    .sort((a, b) => a - b);
  return candidates[0] ?? null;
}

/** The offset of `timeZone` from UTC at an instant, in milliseconds (wall minus UTC). */
export function offsetAt(instantMs: number, timeZone: string): number {
  const wall = wallTimeAt(instantMs, timeZone);
  const wallMs = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return wallMs - Math.floor(instantMs / 1000) * 1000;
}

function isUtc(timeZone: string): boolean {
  return timeZone === 'UTC' || timeZone === 'Etc/UTC';
}

function wallTimeOfUtc(instantMs: number): WallTime {
  const d = new Date(instantMs);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}
