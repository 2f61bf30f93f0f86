import type { CronFields } from './cron-fields.ts';
import { parseCrontab, AWS_SYNTAX_MESSAGE, SECONDS_MESSAGE, type Crontab } from './crontab-parser.ts';
import { formatEventBridgeCron } from './eventbridge-format.ts';
import { firesMoreOftenThan, neverFires } from './fire-pattern.ts';

export { isValidTimeZone } from './time-zone.ts';

/** The outcome of converting a crontab: the EventBridge expressions, or why it cannot be scheduled. */
export type ConversionResult = { ok: true; expressions: string[] } | { ok: false; message: string };

/** The EventBridge expressions of the fixed cadences (DESIGN §5), evaluated in UTC. */
export const cadenceExpressions = {
  daily: 'cron(0 2 * * ? *)',
  weekly: 'cron(0 3 ? * MON *)',
  monthly: 'cron(0 4 1 * ? *)',
} as const;

/** The shortest interval between two fires we schedule, in minutes. */
export const MINIMUM_INTERVAL_MINUTES = 5;
const MAX_EXPRESSION_LENGTH = 256;

/** User-facing rejection messages that do not depend on the input text. */
export const conversionMessages = {
  seconds: SECONDS_MESSAGE,
  awsSyntax: AWS_SYNTAX_MESSAGE,
  tooFrequent: `fires more often than every ${MINIMUM_INTERVAL_MINUTES} minutes`,
  neverFires: 'never fires',
  bothDaysRestricted:
    'day-of-month and day-of-week cannot both be restricted when either starts with *: ' +
    'cron then requires both to match, which EventBridge cannot express',
  tooLong: `an emitted expression exceeds ${MAX_EXPRESSION_LENGTH} characters`,
} as const;

/**
 * Convert a standard 5-field Vixie crontab (or an `@` macro) to one or two EventBridge Scheduler
 * `cron(...)` expressions per DESIGN §5. Two expressions are emitted when Vixie's day rule is an OR
 * of two restricted fields; their union fires exactly when the crontab does. Rejections are values
 * whose message is fit for a 400 on `cron_expression`.
 */
export function convertCrontab(text: string): ConversionResult {
  const parsed = parseCrontab(text);
  if (!parsed.ok) return parsed;
  const split = splitDayRule(parsed.crontab);
  if (split === null) return { ok: false, message: conversionMessages.bothDaysRestricted };
  // A split half that can never fire (31 February) is dropped: the other half carries the union.
  const live = split.filter((fields) => !neverFires([fields]));
  if (live.length === 0) return { ok: false, message: conversionMessages.neverFires };
  if (firesMoreOftenThan(live, MINIMUM_INTERVAL_MINUTES)) return { ok: false, message: conversionMessages.tooFrequent };
  const expressions = live.map(formatEventBridgeCron);
  if (expressions.some((e) => e.length > MAX_EXPRESSION_LENGTH)) return { ok: false, message: conversionMessages.tooLong };
  return { ok: true, expressions };
}

/** EventBridge needs exactly one of day-of-month and day-of-week to be `?`; null when that cannot be. */
function splitDayRule(crontab: Crontab): CronFields[] | null {
  const common = { minutes: crontab.minutes, hours: crontab.hours, months: crontab.months, years: null };
  const byDayOfMonth: CronFields = { ...common, daysOfMonth: crontab.daysOfMonth, daysOfWeek: null };
  const byDayOfWeek: CronFields = { ...common, daysOfMonth: null, daysOfWeek: crontab.daysOfWeek };
  const everyDay: CronFields = { ...common, daysOfMonth: range(1, 31), daysOfWeek: null };
  const allDaysOfMonth = crontab.daysOfMonth.length === 31;
  const allDaysOfWeek = crontab.daysOfWeek.length === 7;
  if (crontab.daysMustBothMatch) {
    if (allDaysOfWeek) return [byDayOfMonth];
    if (allDaysOfMonth) return [byDayOfWeek];
    return null;
  }
  if (allDaysOfMonth || allDaysOfWeek) return [everyDay];
  return [byDayOfMonth, byDayOfWeek];
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
