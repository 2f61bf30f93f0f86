/**
 * Parser for a standard 5-field Vixie crontab (plus the `@` macros) into value sets. It knows
 * nothing about EventBridge; crontab.ts decides what can be emitted.
 */
import type { FieldSpec } from './cron-fields.ts';

/** A parsed crontab line: every field expanded to its set of values. */
export interface Crontab {
  minutes: number[];
  hours: number[];
  daysOfMonth: number[];
  months: number[];
  /** 0 = Sunday … 6 = Saturday; a 7 in the text is folded into 0. */
  daysOfWeek: number[];
  /**
   * Vixie's day rule: when the day-of-month or day-of-week text starts with `*`, both fields must
   * match; otherwise either may.
   */
  daysMustBothMatch: boolean;
}

export type CrontabParse = { ok: true; crontab: Crontab } | { ok: false; message: string };

export const SECONDS_MESSAGE = 'seconds are not supported: use 5 fields';
export const AWS_SYNTAX_MESSAGE = 'AWS cron syntax is not accepted: use a standard 5-field crontab';

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const FIELD_SPECS: readonly FieldSpec[] = [
  { label: 'minute', min: 0, max: 59 },
  { label: 'hour', min: 0, max: 23 },
  { label: 'day-of-month', min: 1, max: 31 },
  {
    label: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
    nameBase: 1,
  },
  // Vixie accepts 7 for Sunday, and its `*` spans 0–7, which matters for `*/n` only through 7 → 0.
  { label: 'day-of-week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'], nameBase: 0 },
];

class FieldError extends Error {}

/** Parse a crontab line. Failures are values whose message is fit to show the user. */
export function parseCrontab(text: string): CrontabParse {
  const trimmed = text.trim();
  // AWS syntax is checked first so that `cron(0 2 * * ? *)` is not reported as "6 fields".
  if (/^(cron|rate|at)\(/i.test(trimmed) || /[?#]/.test(trimmed)) return { ok: false, message: AWS_SYNTAX_MESSAGE };
  if (trimmed.startsWith('@')) return parseMacro(trimmed);
  const fields = trimmed === '' ? [] : trimmed.split(/\s+/);
  if (fields.length === 6) return { ok: false, message: SECONDS_MESSAGE };
  if (fields.length !== 5) {
    return { ok: false, message: `expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}` };
  }
  try {
    const [minutes, hours, daysOfMonth, months, daysOfWeek] = fields.map((field, i) => parseField(field, FIELD_SPECS[i]));
    return {
      ok: true,
      crontab: {
        minutes,
        hours,
        daysOfMonth,
        months,
        daysOfWeek,
        daysMustBothMatch: fields[2].startsWith('*') || fields[4].startsWith('*'),
      },
    };
  } catch (err) {
    if (err instanceof FieldError) return { ok: false, message: err.message };
    throw err;
  }
}

function parseMacro(text: string): CrontabParse {
  const macro = text.toLowerCase();
  const expansion = MACROS[macro];
  if (expansion !== undefined) return parseCrontab(expansion);
  if (macro === '@reboot') return { ok: false, message: '@reboot is not supported: a schedule needs a time' };
  return { ok: false, message: `unknown macro ${text}: use one of ${Object.keys(MACROS).join(' ')}` };
}

function parseField(text: string, spec: FieldSpec): number[] {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    for (const value of expandItem(item, spec)) values.add(spec.label === 'day-of-week' && value === 7 ? 0 : value);
  }
  return [...values].sort((a, b) => a - b);
}

function expandItem(item: string, spec: FieldSpec): number[] {
  const [base = '', stepText, ...rest] = item.split('/');
  if (base === '' || rest.length > 0) throw new FieldError(`invalid ${spec.label} field item "${item}"`);
  const step = stepText === undefined ? 1 : parseStep(stepText, item, spec);
  let first: number;
  let last: number;
  if (base === '*') {
    [first, last] = [spec.min, spec.max];
  } else if (base.includes('-')) {
    const [from = '', to = '', ...more] = base.split('-');
    if (more.length > 0) throw new FieldError(`invalid ${spec.label} range "${base}"`);
    [first, last] = [parseValue(from, spec), parseValue(to, spec)];
    if (first > last) throw new FieldError(`reversed range ${base} in the ${spec.label} field`);
  } else {
    first = parseValue(base, spec);
    // Vixie and its descendants disagree on what `5/15` means, so it is refused rather than guessed.
    if (stepText !== undefined) {
      throw new FieldError(`${item} is not portable: write ${base}-${spec.max}/${stepText} in the ${spec.label} field`);
    }
    last = first;
  }
  const values: number[] = [];
  for (let v = first; v <= last; v += step) values.push(v);
  return values;
}

function parseStep(text: string, item: string, spec: FieldSpec): number {
  const step = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(step >= 1 && step <= spec.max - spec.min + 1)) {
    throw new FieldError(`invalid step in "${item}": the ${spec.label} step must be 1-${spec.max - spec.min + 1}`);
  }
  return step;
}

function parseValue(text: string, spec: FieldSpec): number {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    if (value < spec.min || value > spec.max) {
      throw new FieldError(`${text} is out of range for the ${spec.label} field (${spec.min}-${spec.max})`);
    }
    return value;
  }
  const index = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  if (index >= 0) return index + (spec.nameBase ?? 0);
  // Quartz/AWS day modifiers (`L`, `15W`, `5L`, `LW`) are not Vixie.
  if (/^\d*[LW]+\d*$/i.test(text)) throw new FieldError(AWS_SYNTAX_MESSAGE);
  throw new FieldError(`"${text}" is not a valid ${spec.label} value`);
}
