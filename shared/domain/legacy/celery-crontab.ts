import { formatRuns } from '../cron/cron-fields.ts';
/**
 * Celery's crontab fields as `celery.schedules.crontab_parser` reads them, so a legacy task is
 * migrated to the days and times it really fired on, not to what the same text means to Vixie cron.
 * The differences that matter: day_of_month and day_of_week always both have to match (AND), a
 * range may wrap around (`fri-mon`, `22-2`), `a/n` is an error, month names are an error, and any
 * numeric field accepts a day name (celery looks every non-number up as a weekday).
 */

export type CeleryFieldName = 'minute' | 'hour' | 'day_of_week' | 'day_of_month' | 'month_of_year';

interface CeleryFieldSpec {
  /** Smallest value. */
  min: number;
  /** Number of values (celery's `max_`): the field holds min … min + size - 1. */
  size: number;
}

export const CELERY_FIELDS: Record<CeleryFieldName, CeleryFieldSpec> = {
  minute: { min: 0, size: 60 },
  hour: { min: 0, size: 24 },
  day_of_week: { min: 0, size: 7 },
  day_of_month: { min: 1, size: 31 },
  month_of_year: { min: 1, size: 12 },
};

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** A celery crontab expanded to sets of values; day_of_week 0 is Sunday. */
export interface CeleryCrontab {
  minute: number[];
  hour: number[];
  day_of_week: number[];
  day_of_month: number[];
  month_of_year: number[];
}

export type CeleryParse = { ok: true; crontab: CeleryCrontab } | { ok: false; field: CeleryFieldName; message: string };

class CeleryFieldError extends Error {}

/** celery's `_expand_number`: an integer, else a weekday name (first three letters, any case). */
function expandNumber(token: string, spec: CeleryFieldSpec): number {
  if (token.startsWith('-')) throw new CeleryFieldError('negative numbers are not supported');
  let value: number;
  if (/^\s*\+?\d+\s*$/.test(token)) {
    value = Number(token.trim());
  } else {
    const index = WEEKDAYS.indexOf(token.slice(0, 3).toLowerCase());
    if (index < 0) throw new CeleryFieldError(`${JSON.stringify(token)} is neither a number nor a weekday name`);
    value = index;
  }
  const max = spec.min + spec.size - 1;
  if (value > max) throw new CeleryFieldError(`${value} is above ${max}`);
  if (value < spec.min) throw new CeleryFieldError(`${value} is below ${spec.min}`);
  return value;
}

/** celery's `_expand_range`: `to < from` wraps around the end of the field. */
function expandRange(from: string, to: string | undefined, spec: CeleryFieldSpec): number[] {
  const first = expandNumber(from, spec);
  if (to === undefined) return [first];
  const last = expandNumber(to, spec);
  if (last < first) return [...span(first, spec.min + spec.size - 1), ...span(spec.min, last)];
  return span(first, last);
}

function span(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

function everyNth(values: number[], stepText: string | undefined): number[] {
  if (!stepText) throw new CeleryFieldError('a step needs a number after /');
  if (!/^\d+$/.test(stepText)) throw new CeleryFieldError(`step ${JSON.stringify(stepText)} is not a number`);
  const step = Number(stepText);
  if (step === 0) throw new CeleryFieldError('a step of 0 is not allowed');
  return values.filter((_, index) => index % step === 0);
}

// celery matches these with re.match: anchored at the start only, tried in this order.
const RANGE_STEPS = /^(\w+?)-(\w+)\/(\w+)?/;
const RANGE = /^(\w+?)-(\w+)/;
const STAR_STEPS = /^\*\/(\w+)?/;
const STAR = /^\*$/;

function parsePart(part: string, spec: CeleryFieldSpec): number[] {
  let m = RANGE_STEPS.exec(part);
  if (m) return everyNth(expandRange(m[1], m[2], spec), m[3]);
  m = RANGE.exec(part);
  if (m) return expandRange(m[1], m[2], spec);
  m = STAR_STEPS.exec(part);
  if (m) return everyNth(span(spec.min, spec.min + spec.size - 1), m[1]);
  if (STAR.test(part)) return span(spec.min, spec.min + spec.size - 1);
  return expandRange(part, undefined, spec);
}

/** One field's text to its sorted set of values, or throws with celery's reason. */
export function parseCeleryField(text: string, field: CeleryFieldName): number[] {
  const spec = CELERY_FIELDS[field];
  const values = new Set<number>();
  for (const part of text.split(',')) {
    if (part === '') throw new CeleryFieldError('empty list item');
    for (const value of parsePart(part, spec)) values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}

/** Parses the five text fields of a `django_celery_beat_crontabschedule` row. */
export function parseCeleryCrontab(fields: Record<CeleryFieldName, string>): CeleryParse {
  const crontab: Partial<CeleryCrontab> = {};
  for (const field of Object.keys(CELERY_FIELDS) as CeleryFieldName[]) {
    try {
      crontab[field] = parseCeleryField(fields[field].trim(), field);
    } catch (error) {
      if (!(error instanceof CeleryFieldError)) throw error;
      return { ok: false, field, message: `${field} ${JSON.stringify(fields[field])}: ${error.message}` };
    }
  }
  return { ok: true, crontab: crontab as CeleryCrontab };
}

/** Whether a field holds every value it can. */
export function isFullField(values: readonly number[], field: CeleryFieldName): boolean {
  return values.length === CELERY_FIELDS[field].size;
}

/**
 * One field as 5-field crontab text: `*` when full, `*\/n` when it is exactly every n-th value from
 * the start (three values or more, or n dividing the field: `*\/12` hours, not `*\/6` for Sun and Sat), else runs of three or more as `a-b` and the rest as a list.
 */
export function formatCronField(values: readonly number[], field: CeleryFieldName): string {
  const { min, size } = CELERY_FIELDS[field];
  if (values.length === size) return '*';
  for (let step = 2; step < size; step++) {
    const every = span(0, Math.ceil(size / step) - 1).map((i) => min + i * step);
    const readable = every.length >= 3 || (every.length === 2 && size % step === 0);
    if (readable && every.length === values.length && every.every((v, i) => v === values[i])) return `*/${step}`;
  }
  return formatRuns(values);
}
