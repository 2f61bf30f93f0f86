import cronstrue from 'cronstrue';
import { cadenceExpressions, convertCrontab } from '../../shared/domain/cron/crontab.ts';
import { nextFireTimeOf } from '../../shared/domain/cron/eventbridge-cron.ts';
import { isValidTimeZone } from '../../shared/domain/cron/time-zone.ts';
import type { Cadence } from '../../shared/domain/schedule.ts';

/** An EventBridge `cron(m h dom mon dow year)` as the 5-field form cronstrue reads (names keep DOW unambiguous). */
function eventBridgeAsCrontab(expression: string): string {
  const fields = expression
    .replace(/^cron\(|\)$/g, '')
    .split(' ')
    .slice(0, 5);
  return fields.map((field) => (field === '?' ? '*' : field)).join(' ');
}

function words(crontab: string): string {
  return cronstrue.toString(crontab, { use24HourTimeFormat: true, verbose: false, throwExceptionOnParseError: true });
}

/** The cadence in words with its time zone: "At 09:30, Monday through Friday (Europe/Paris)". */
export function cadenceInWords(schedule: { cadence: Cadence; cron_expression: string | null; timezone: string }): string {
  try {
    if (schedule.cadence === 'custom') return `${words(schedule.cron_expression ?? '')} (${schedule.timezone})`;
    return `${words(eventBridgeAsCrontab(cadenceExpressions[schedule.cadence]))} (UTC)`;
  } catch {
    return schedule.cadence === 'custom' ? `${schedule.cron_expression ?? ''} (${schedule.timezone})` : schedule.cadence;
  }
}

export type CadencePreview =
  | { ok: true; words: string; expressions: string[]; timezone: string; next: Date[] }
  | { ok: false; field: 'cron_expression' | 'timezone'; message: string };

/**
 * What the form shows as you type: the server's own conversion (the same EventBridge expressions
 * or the same refusal) and the next fire times from the server's own evaluator.
 */
export function previewCadence(cadence: Cadence, cronExpression: string, timezone: string, now: Date, count = 5): CadencePreview {
  let expressions: string[];
  let zone = 'UTC';
  let text: string;
  if (cadence === 'custom') {
    if (cronExpression.trim() === '') return { ok: false, field: 'cron_expression', message: 'is required when cadence is custom' };
    const converted = convertCrontab(cronExpression);
    if (!converted.ok) return { ok: false, field: 'cron_expression', message: converted.message };
    if (!isValidTimeZone(timezone)) return { ok: false, field: 'timezone', message: 'must be an IANA time zone such as Europe/Paris' };
    expressions = converted.expressions;
    zone = timezone;
    text = cadenceInWords({ cadence, cron_expression: cronExpression, timezone });
  } else {
    expressions = [cadenceExpressions[cadence]];
    text = cadenceInWords({ cadence, cron_expression: null, timezone: 'UTC' });
  }
  const next: Date[] = [];
  let after = now;
  for (let i = 0; i < count; i++) {
    const fire = nextFireTimeOf(expressions, zone, after);
    if (fire === null) break;
    next.push(fire);
    after = fire;
  }
  return { ok: true, words: text, expressions, timezone: zone, next };
}

/** A date and time on the wall clock of `timeZone`, with the zone named. */
export function formatInZone(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(date);
}

/**
 * A date and time in the browser's zone, with the zone named (a schedule's own zone may differ,
 * so a bare 08:30 next to "09:30 (Europe/Paris)" reads as a mistake), or a dash.
 */
export function formatLocal(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(iso));
}

/** Every IANA zone the browser knows, for the Timezone field's suggestions. */
export function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...zones.filter((zone) => zone !== 'UTC')];
}

/** The same instant, short enough for a table cell: no year when it is this year's. */
export function formatShort(iso: string | null | undefined, now = new Date(), seconds = false): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    ...(date.getFullYear() === now.getFullYear() ? {} : { year: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
    ...(seconds ? { second: '2-digit' } : {}),
    timeZoneName: 'short',
  }).format(date);
}

/**
 * The times of a list, each as short as it can be and still tell the rows apart: to the minute,
 * and to the second for the times that share their minute with another (three runs now at 10:00).
 */
export function formatDistinct(isos: readonly string[], now = new Date()): string[] {
  const minute = (iso: string) => formatShort(iso, now);
  const counts = new Map<string, number>();
  for (const iso of isos) counts.set(minute(iso), (counts.get(minute(iso)) ?? 0) + 1);
  return isos.map((iso) => ((counts.get(minute(iso)) ?? 0) > 1 ? formatShort(iso, now, true) : minute(iso)));
}
