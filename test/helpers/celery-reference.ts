/**
 * A small, independent reading of celery's crontab semantics (celery.schedules.crontab and its
 * crontab_parser), evaluated in UTC: the oracle of the legacy mapping's property test. It shares no
 * code with shared/domain/legacy so that a bug there cannot hide itself here.
 *
 * Celery fires at a minute when minute, hour, day of month, month and day of week all match: unlike
 * Vixie cron, the two day fields are always ANDed. Ranges wrap (`fri-mon`), steps take every n-th
 * value of the range, day of week 0 is Sunday.
 */

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export interface CeleryReference {
  minute: Set<number>;
  hour: Set<number>;
  dayOfWeek: Set<number>;
  dayOfMonth: Set<number>;
  monthOfYear: Set<number>;
}

function field(text: string, lo: number, count: number): Set<number> {
  const hi = lo + count - 1;
  const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : DAYS.indexOf(s.slice(0, 3).toLowerCase()));
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [body, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    let values: number[] = [];
    if (body === '*') {
      for (let v = lo; v <= hi; v++) values.push(v);
    } else if (body.includes('-')) {
      const [a, b] = body.split('-').map(num);
      if (a <= b) for (let v = a; v <= b; v++) values.push(v);
      else {
        for (let v = a; v <= hi; v++) values.push(v);
        for (let v = lo; v <= b; v++) values.push(v);
      }
    } else {
      values = [num(body)];
    }
    values.forEach((v, i) => {
      if (i % step === 0) out.add(v);
    });
  }
  return out;
}

/** Parses celery fields the generator produced (always valid). */
export function parseCeleryReference(fields: {
  minute: string;
  hour: string;
  day_of_week: string;
  day_of_month: string;
  month_of_year: string;
}): CeleryReference {
  return {
    minute: field(fields.minute, 0, 60),
    hour: field(fields.hour, 0, 24),
    dayOfWeek: field(fields.day_of_week, 0, 7),
    dayOfMonth: field(fields.day_of_month, 1, 31),
    monthOfYear: field(fields.month_of_year, 1, 12),
  };
}

/** Every fire in [from, to) in UTC (epoch milliseconds), `from` at a UTC midnight. */
export function celeryFireTimes(c: CeleryReference, from: Date, to: Date): number[] {
  const out: number[] = [];
  const minutes = [...c.minute].sort((a, b) => a - b);
  const hours = [...c.hour].sort((a, b) => a - b);
  for (let day = from.getTime(); day < to.getTime(); day += 86_400_000) {
    const d = new Date(day);
    if (!c.monthOfYear.has(d.getUTCMonth() + 1) || !c.dayOfMonth.has(d.getUTCDate()) || !c.dayOfWeek.has(d.getUTCDay())) continue;
    for (const h of hours) for (const m of minutes) out.push(day + h * 3_600_000 + m * 60_000);
  }
  return out;
}
