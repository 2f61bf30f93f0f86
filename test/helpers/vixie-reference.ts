/**
 * A deliberately small, independent reading of Vixie cron semantics (5 fields, UTC), used as the
 * oracle of the conversion property test. It shares no code with shared/domain/cron so that a
 * bug there cannot hide itself here. Neither cron-parser nor croner implement Vixie's `*`-prefix
 * day rule, hence hand-written.
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export interface VixieCrontab {
  minute: Set<number>;
  hour: Set<number>;
  dayOfMonth: Set<number>;
  month: Set<number>;
  dayOfWeek: Set<number>;
  domStar: boolean;
  dowStar: boolean;
}

/** Parse a valid 5-field crontab; throws on anything else (the generator only makes valid ones). */
export function parseVixie(text: string): VixieCrontab {
  const f = text.trim().split(/\s+/);
  if (f.length !== 5) throw new Error(`not 5 fields: ${text}`);
  const dayOfWeek = new Set([...field(f[4], 0, 7, DAYS, 0)].map((d) => d % 7));
  return {
    minute: field(f[0], 0, 59),
    hour: field(f[1], 0, 23),
    dayOfMonth: field(f[2], 1, 31),
    month: field(f[3], 1, 12, MONTHS, 1),
    dayOfWeek,
    domStar: f[2].startsWith('*'),
    dowStar: f[4].startsWith('*'),
  };
}

function field(text: string, lo: number, hi: number, names: string[] = [], base = 0): Set<number> {
  const value = (s: string): number => (names.includes(s.toLowerCase()) ? names.indexOf(s.toLowerCase()) + base : Number(s));
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const [range, step = '1'] = item.split('/');
    const [a, b] = range === '*' ? [lo, hi] : range.includes('-') ? range.split('-').map(value) : [value(range), value(range)];
    for (let v = a; v <= b; v += Number(step)) out.add(v);
  }
  return out;
}

/** Whether the crontab fires in the UTC minute of `at`: Vixie's `cron.c` match, day rule included. */
export function vixieMatches(c: VixieCrontab, at: Date): boolean {
  return c.minute.has(at.getUTCMinutes()) && c.hour.has(at.getUTCHours()) && vixieDayMatches(c, at);
}

/**
 * Every fire in [from, to) (epoch milliseconds; `from` at a UTC midnight), minute by minute. Days
 * the day rule excludes are skipped whole, which is exact because that rule ignores the time of
 * day, and keeps a year's walk fast.
 */
export function vixieFireTimes(c: VixieCrontab, from: Date, to: Date): number[] {
  const out: number[] = [];
  for (let day = from.getTime(); day < to.getTime(); day += 86_400_000) {
    if (!vixieDayMatches(c, new Date(day))) continue;
    for (let t = day; t < day + 86_400_000 && t < to.getTime(); t += 60_000) if (vixieMatches(c, new Date(t))) out.push(t);
  }
  return out;
}

function vixieDayMatches(c: VixieCrontab, at: Date): boolean {
  const domOk = c.dayOfMonth.has(at.getUTCDate());
  const dowOk = c.dayOfWeek.has(at.getUTCDay());
  return c.month.has(at.getUTCMonth() + 1) && (c.domStar || c.dowStar ? domOk && dowOk : domOk || dowOk);
}
