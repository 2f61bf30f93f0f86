import { isValidTimeZone } from '../cron/crontab.ts';
import type { Cadence, ScheduleCreateRequest } from '../schedule.ts';
import { LEGACY_SCOPE_KEYS } from '../scope.ts';
import { formatCronField, isFullField, parseCeleryCrontab, type CeleryCrontab } from './celery-crontab.ts';
import type { LegacyCrontab, LegacyInterval, LegacySchedule } from './legacy-schedule.ts';
import { secretScanScopeOfLegacyOptions } from './legacy-secret-scan-options.ts';

/** How a legacy task's timing becomes ours: a fixed cadence, or a 5-field crontab in a zone. */
export type LegacyTiming =
  | { ok: true; cadence: Exclude<Cadence, 'custom'> }
  | { ok: true; cadence: 'custom'; cron_expression: string; timezone: string }
  | { ok: false; reason: string };

/** A legacy schedule as a create request, or the reason it is not migrated. */
export type LegacyMapping = { ok: true; request: ScheduleCreateRequest; notes: string[] } | { ok: false; reason: string };

const MAX_NAME = 200;
const MAX_DESCRIPTION = 2000;

/** Zones that are UTC under another name: a crontab in one of them can be a fixed cadence. */
const UTC_NAMES = new Set([
  'UTC',
  'Etc/UTC',
  'Etc/Universal',
  'Universal',
  'Etc/Zulu',
  'Zulu',
  'GMT',
  'Etc/GMT',
  'Etc/GMT0',
  'Etc/GMT+0',
  'Etc/GMT-0',
  'GMT0',
  'Greenwich',
  'Etc/Greenwich',
]);

/** The fixed cadences as celery crontab sets (DESIGN §5: all in UTC). */
const CADENCE_SHAPES: { cadence: Exclude<Cadence, 'custom'>; minute: number; hour: number; dayOfMonth?: number; dayOfWeek?: number }[] = [
  { cadence: 'daily', minute: 0, hour: 2 },
  { cadence: 'weekly', minute: 0, hour: 3, dayOfWeek: 1 },
  { cadence: 'monthly', minute: 0, hour: 4, dayOfMonth: 1 },
];

function only(values: readonly number[], value: number): boolean {
  return values.length === 1 && values[0] === value;
}

function cadenceOf(c: CeleryCrontab): Exclude<Cadence, 'custom'> | null {
  if (!isFullField(c.month_of_year, 'month_of_year')) return null;
  for (const shape of CADENCE_SHAPES) {
    const dom = shape.dayOfMonth === undefined ? isFullField(c.day_of_month, 'day_of_month') : only(c.day_of_month, shape.dayOfMonth);
    const dow = shape.dayOfWeek === undefined ? isFullField(c.day_of_week, 'day_of_week') : only(c.day_of_week, shape.dayOfWeek);
    if (only(c.minute, shape.minute) && only(c.hour, shape.hour) && dom && dow) return shape.cadence;
  }
  return null;
}

/**
 * A celery crontab as our timing. Celery requires day_of_month and day_of_week to both match, so
 * restricting both is skipped: a 5-field crontab ORs two restricted day fields, and EventBridge
 * cannot AND them. With at most one restricted, writing the other as `*` makes Vixie cron AND
 * them too, so the emitted crontab fires on exactly celery's days.
 */
export function mapCeleryCrontab(row: LegacyCrontab): LegacyTiming {
  const parsed = parseCeleryCrontab(row);
  if (!parsed.ok) return { ok: false, reason: `celery cannot parse its crontab: ${parsed.message}` };
  const c = parsed.crontab;
  const timezone = row.timezone.trim() === '' ? 'UTC' : row.timezone.trim();
  if (!isValidTimeZone(timezone)) return { ok: false, reason: `crontab timezone ${JSON.stringify(row.timezone)} is not an IANA time zone` };
  if (!isFullField(c.day_of_month, 'day_of_month') && !isFullField(c.day_of_week, 'day_of_week')) {
    return {
      ok: false,
      reason:
        `crontab restricts both day_of_month (${row.day_of_month}) and day_of_week (${row.day_of_week}): celery fires only on ` +
        'days matching both, which one schedule cannot express; create it by hand as two schedules or a narrower one',
    };
  }
  if (UTC_NAMES.has(timezone)) {
    const cadence = cadenceOf(c);
    if (cadence) return { ok: true, cadence };
  }
  const cron_expression = [
    formatCronField(c.minute, 'minute'),
    formatCronField(c.hour, 'hour'),
    formatCronField(c.day_of_month, 'day_of_month'),
    formatCronField(c.month_of_year, 'month_of_year'),
    formatCronField(c.day_of_week, 'day_of_week'),
  ].join(' ');
  return { ok: true, cadence: 'custom', cron_expression, timezone };
}

const SECONDS_PER_PERIOD: Record<string, number> = { days: 86_400, hours: 3_600, minutes: 60, seconds: 1, microseconds: 0.000_001 };

/**
 * A celery interval as a crontab in UTC, when one fires at the same rate: every n minutes where n
 * divides the hour, every n hours where n divides the day, or every day. The phase becomes the
 * clock's (`every 6 hours` → 00:00, 06:00, ...) instead of "n hours after the last run".
 */
export function mapCeleryInterval(row: LegacyInterval): LegacyTiming {
  const unit = SECONDS_PER_PERIOD[row.period];
  const what = `every ${row.every} ${row.period}`;
  if (unit === undefined)
    return {
      ok: false,
      reason: `interval period ${JSON.stringify(row.period)} is not one of ${Object.keys(SECONDS_PER_PERIOD).join(', ')}`,
    };
  if (!Number.isInteger(row.every) || row.every <= 0) return { ok: false, reason: `interval ${what} is not a positive whole number` };
  const seconds = Math.round(row.every * unit * 1e6) / 1e6;
  if (seconds % 60 !== 0) return { ok: false, reason: `interval ${what} is not a whole number of minutes` };
  const minutes = seconds / 60;
  const custom = (cron_expression: string): LegacyTiming => ({ ok: true, cadence: 'custom', cron_expression, timezone: 'UTC' });
  if (minutes < 5)
    return { ok: false, reason: `interval ${what} fires more often than every 5 minutes, the shortest this service schedules` };
  if (minutes < 60) {
    if (60 % minutes === 0) return custom(`*/${minutes} * * * *`);
    return {
      ok: false,
      reason: `interval ${what} does not divide the hour evenly, so no crontab fires at that rate; create a custom schedule by hand`,
    };
  }
  if (minutes % 60 !== 0)
    return {
      ok: false,
      reason: `interval ${what} is not a whole number of hours and does not divide the hour; create a custom schedule by hand`,
    };
  const hours = minutes / 60;
  if (hours === 1) return custom('0 * * * *');
  if (hours < 24) {
    if (24 % hours === 0) return custom(`0 */${hours} * * *`);
    return {
      ok: false,
      reason: `interval ${what} does not divide the day evenly, so no crontab fires at that rate; create a custom schedule by hand`,
    };
  }
  if (hours === 24) return custom('0 0 * * *');
  return {
    ok: false,
    reason: `interval ${what} is longer than a day and no crontab repeats every ${hours / 24} days across month ends; create a schedule by hand`,
  };
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const MODEL_LABEL: Record<LegacySchedule['model'], string> = {
  'secretscan.schedule': 'Secret Scan schedule',
  'network.continuousschedule': 'Continuous Network schedule',
};

function scopeOf(row: LegacySchedule): { scope: Record<string, unknown>; notes: string[] } {
  const tags = { source_legacy_model: row.model, source_legacy_id: row.id };
  if (row.model === 'network.continuousschedule') {
    return { scope: row.ports === null || row.ports.trim() === '' ? tags : { ports: row.ports, ...tags }, notes: [] };
  }
  const options = row.scan_options;
  const own =
    options !== null && typeof options === 'object' && !Array.isArray(options)
      ? Object.fromEntries(Object.entries(options).filter(([key]) => !(LEGACY_SCOPE_KEYS as readonly string[]).includes(key)))
      : options;
  const { scope, notes } = secretScanScopeOfLegacyOptions(own);
  return { scope: { ...scope, ...tags }, notes };
}

/**
 * A legacy schedule as a create request (DESIGN §9), before the API's own validation, which the
 * schedule service applies on top. Skips are values with a reason an operator can act on.
 */
export function mapLegacySchedule(row: LegacySchedule): LegacyMapping {
  const task = row.task;
  if (task === null) return { ok: false, reason: 'has no periodic task, so it never fired' };
  if (task.one_off) return { ok: false, reason: `periodic task ${task.id} is one-off, not a recurring schedule` };
  let timing: LegacyTiming;
  if (task.crontab) timing = mapCeleryCrontab(task.crontab);
  else if (task.interval) timing = mapCeleryInterval(task.interval);
  else
    timing = {
      ok: false,
      reason: `periodic task ${task.id} has neither a crontab nor an interval (solar and clocked schedules are not migrated)`,
    };
  if (!timing.ok) return timing;

  const { scope, notes } = scopeOf(row);
  const fullName = row.name.trim() === '' ? `${MODEL_LABEL[row.model]} ${row.id}` : row.name.trim();
  const name = shorten(fullName, MAX_NAME);
  if (name !== fullName) notes.push(`name shortened to ${MAX_NAME} characters (the full name is in the description)`);
  const description = shorten(
    `Migrated from legacy ${MODEL_LABEL[row.model]} ${row.id} (periodic task ${task.id} "${task.name}")` +
      (name !== fullName ? `. Full name: ${fullName}` : ''),
    MAX_DESCRIPTION,
  );
  const request: ScheduleCreateRequest = {
    name,
    description,
    scan_type: row.model === 'secretscan.schedule' ? 'secret_scan' : 'vm',
    target: row.model === 'secretscan.schedule' ? row.repository_url.trim() : row.target.trim(),
    scope,
    cadence: timing.cadence,
    enabled: task.enabled,
    ...(timing.cadence === 'custom' ? { cron_expression: timing.cron_expression, timezone: timing.timezone } : {}),
  };
  return { ok: true, request, notes };
}
