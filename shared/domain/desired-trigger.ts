import type { ScheduleRecord, Trigger } from './schedule.ts';

// Apart from schedule.ts, whose module builds every schedule schema: reconcile needs this rule and
// none of those schemas, and each module a function imports is built at its cold start.

/** The trigger a row owns: its definition while enabled, none while disabled. */
export function desiredTrigger(record: Pick<ScheduleRecord, 'enabled' | 'trigger_definition'>): Trigger | null {
  return record.enabled ? record.trigger_definition : null;
}
