import { DAY_NAMES, formatRuns, type CronFields } from './cron-fields.ts';

/**
 * Format value sets as an EventBridge `cron(min hour dom month dow year)` expression: a full set
 * as `*`, runs of three or more as `a-b`, anything else as a list, and days of the week as names,
 * because EventBridge numbers them SUN=1 where crontab says SUN=0.
 */
export function formatEventBridgeCron(fields: CronFields): string {
  const parts = [
    formatSet(fields.minutes, 60, String),
    formatSet(fields.hours, 24, String),
    fields.daysOfMonth === null ? '?' : formatSet(fields.daysOfMonth, 31, String),
    formatSet(fields.months, 12, String),
    fields.daysOfWeek === null ? '?' : formatSet(fields.daysOfWeek, 7, (d) => DAY_NAMES[d]),
    fields.years === null ? '*' : formatSet(fields.years, Infinity, String),
  ];
  return `cron(${parts.join(' ')})`;
}

function formatSet(values: readonly number[], fullSize: number, show: (value: number) => string): string {
  return values.length === fullSize ? '*' : formatRuns(values, show);
}
