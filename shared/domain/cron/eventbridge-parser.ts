import { DAY_NAMES, MONTH_NAMES, type CronFields, type FieldSpec } from './cron-fields.ts';

const SPECS: readonly FieldSpec[] = [
  { label: 'minutes', min: 0, max: 59 },
  { label: 'hours', min: 0, max: 23 },
  { label: 'day-of-month', min: 1, max: 31 },
  { label: 'month', min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 },
  { label: 'day-of-week', min: 1, max: 7, names: DAY_NAMES, nameBase: 1 },
  { label: 'year', min: 1970, max: 2199 },
];

/**
 * Parse an EventBridge `cron(min hour dom month dow year)` expression: `*`, `?`, values, names,
 * ranges, lists and steps. The `L`, `W` and `#` modifiers are not supported because the crontab
 * converter never emits them. Throws RangeError on anything else.
 */
export function parseEventBridgeCron(expression: string): CronFields {
  const match = /^cron\((.*)\)$/.exec(expression.trim());
  const fields = match?.[1]!.trim().split(/\s+/) ?? [];
  if (fields.length !== 6) throw new RangeError(`not an EventBridge cron expression with 6 fields: ${expression}`);
  const [minute, hour, dayOfMonth, month, dayOfWeek, year] = fields as [string, string, string, string, string, string];
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    throw new RangeError(`exactly one of day-of-month and day-of-week must be ?: ${expression}`);
  }
  return {
    minutes: parseField(minute, SPECS[0]),
    hours: parseField(hour, SPECS[1]),
    daysOfMonth: dayOfMonth === '?' ? null : parseField(dayOfMonth, SPECS[2]),
    months: parseField(month, SPECS[3]),
    // EventBridge numbers days SUN=1 … SAT=7; the model uses SUN=0.
    daysOfWeek: dayOfWeek === '?' ? null : parseField(dayOfWeek, SPECS[4]).map((d) => d - 1),
    years: year === '*' ? null : parseField(year, SPECS[5]),
  };
}

function parseField(text: string, spec: FieldSpec): number[] {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const [base = '', stepText, ...rest] = item.split('/');
    if (rest.length > 0) throw new RangeError(`invalid ${spec.label} item "${item}"`);
    const step = stepText === undefined ? 1 : parseNumber(stepText, 1, spec.max - spec.min + 1, spec);
    let [first, last] = [spec.min, spec.max];
    if (base !== '*') {
      const [from = '', to, ...more] = base.split('-');
      if (more.length > 0) throw new RangeError(`invalid ${spec.label} range "${base}"`);
      first = parseValue(from, spec);
      // EventBridge reads `5/15` as "from 5 to the end, every 15".
      last = to !== undefined ? parseValue(to, spec) : stepText !== undefined ? spec.max : first;
      if (first > last) throw new RangeError(`reversed ${spec.label} range "${base}"`);
    }
    for (let v = first; v <= last; v += step) values.add(v);
  }
  return [...values].sort((a, b) => a - b);
}

function parseValue(text: string, spec: FieldSpec): number {
  const index = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index >= 0) return index + (spec.nameBase ?? 0);
  return parseNumber(text, spec.min, spec.max, spec);
}

function parseNumber(text: string, min: number, max: number, spec: FieldSpec): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) throw new RangeError(`invalid ${spec.label} value "${text}"`);
  return value;
}
