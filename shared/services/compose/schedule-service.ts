import type { TriggerScheduler } from '../../ports/trigger-scheduler.ts';
import { makeScheduleService } from '../schedule-service.ts';
import type { Adapters } from './adapters.ts';

/** The schedule service (schedules and backfill functions, the local runtime). */
export function composeScheduleService(
  { schedules, clock, ids, logger, targetPolicy }: Adapters<'schedules' | 'clock' | 'ids' | 'logger' | 'targetPolicy'>,
  { triggers, quota }: { triggers: TriggerScheduler; quota: number },
) {
  return makeScheduleService({ repo: schedules, triggers, clock, ids, logger, quota, targetPolicy });
}
