import { FINISHED_STATUSES, jobForSchedule, type ScanJobRecord } from '../domain/scan-job.ts';
import type { FireMessage, ScanMessage } from '../domain/messages.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { ScanLogs } from '../ports/scan-log.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';
import type { ScanEngine } from './scan-engine.ts';

export interface DispatchDeps {
  scans: ScanRepository;
  schedules: ScheduleRepository;
  engine: ScanEngine;
  ids: IdGenerator;
  clock: Clock;
  scanLogs: ScanLogs;
  logger: Logger;
}

/** The fire claim a dropped fire leaves, so a redelivery of it is dropped again without a lookup race. */
const DROPPED = 'dropped';

/**
 * Handles the two queue messages of DESIGN §5 and the dead-letter path. Exactly one ScanJob per
 * (schedule, scheduled time), whatever the number of deliveries, through a conditional claim.
 */
export function makeDispatchService({ scans, schedules, engine, ids, clock, scanLogs, logger }: DispatchDeps) {
  return {
    async handleFire(message: FireMessage, remainingMs: () => number): Promise<ScanJobRecord | null> {
      const { tenant, schedule_id: scheduleId, scheduled_time: scheduledTime } = message;
      const schedule = await schedules.get(tenant, scheduleId);
      const candidate = schedule?.enabled ? ids.newId('scan') : DROPPED;
      const owner = await scans.claimFire(tenant, scheduleId, scheduledTime, candidate);
      if (owner === DROPPED) {
        logger.info('fire dropped', { tenant, schedule_id: scheduleId, scheduled_time: scheduledTime, reason: schedule ? 'schedule disabled' : 'schedule deleted' });
        return null;
      }
      // The winner of the claim knows its job does not exist yet; a redelivery has to look.
      let job = owner === candidate ? null : await scans.get(tenant, owner);
      if (!job) {
        // This delivery won the claim, or an earlier one died between the claim and the insert.
        if (!schedule) {
          logger.warn('fire claimed for a schedule that is gone', { tenant, schedule_id: scheduleId, scan_id: owner });
          return null;
        }
        job = jobForSchedule(schedule, { id: owner, trigger: 'cron', scheduled_time: scheduledTime, created_at: clock.now().toISOString(), log: scanLogs.location(owner) });
        await scans.create(job);
      }
      if (FINISHED_STATUSES.includes(job.status)) {
        logger.info('fire already handled', { tenant, schedule_id: scheduleId, scan_id: job.id });
        return job;
      }
      await schedules.recordRun(tenant, scheduleId, { last_run_at: job.created_at, last_run_status: 'running', last_scan_id: job.id });
      return engine.execute(job, remainingMs);
    },

    async handleScan(message: ScanMessage, remainingMs: () => number): Promise<ScanJobRecord | null> {
      const job = await scans.get(message.tenant, message.scan_id);
      if (!job) {
        logger.warn('scan message for an unknown job dropped', { tenant: message.tenant, scan_id: message.scan_id });
        return null;
      }
      if (FINISHED_STATUSES.includes(job.status)) {
        logger.info('scan already finished; message acknowledged', { tenant: job.tenant, scan_id: job.id, status: job.status });
        return job;
      }
      return engine.execute(job, remainingMs);
    },

    /**
     * A message that exhausted its receives: its job (created now if the fire never got that far)
     * ends `failed` with the reason, and so does the schedule's last run unless a newer scan owns it.
     */
    async handleDeadLetter(message: FireMessage | ScanMessage, reason: string): Promise<void> {
      let job: ScanJobRecord | null = null;
      if (message.kind === 'scan') {
        job = await scans.get(message.tenant, message.scan_id);
      } else {
        const schedule = await schedules.get(message.tenant, message.schedule_id);
        const owner = await scans.claimFire(message.tenant, message.schedule_id, message.scheduled_time, schedule ? ids.newId('scan') : DROPPED);
        if (owner !== DROPPED) {
          job = await scans.get(message.tenant, owner);
          if (!job && schedule) {
            job = jobForSchedule(schedule, { id: owner, trigger: 'cron', scheduled_time: message.scheduled_time, created_at: clock.now().toISOString(), log: scanLogs.location(owner) });
            await scans.create(job);
            await schedules.recordRun(message.tenant, schedule.id, { last_run_at: job.created_at, last_run_status: 'running', last_scan_id: job.id });
          }
        }
      }
      if (!job) {
        logger.warn('dead letter with no job to fail', { tenant: message.tenant, kind: message.kind });
        return;
      }
      const errors = [...job.errors, { runner: 'dispatch', message: reason }];
      const failed = await scans.transition(job.tenant, job.id, ['queued', 'running'], { status: 'failed', finished_at: clock.now().toISOString(), errors });
      scanLogs.loggerFor({ tenant: job.tenant, scan_id: job.id, schedule_id: job.schedule_id }).error('scan failed', { reason, marked: failed });
      if (failed && job.schedule_id) await schedules.finishRun(job.tenant, job.schedule_id, job.id, 'failed');
    },
  };
}

export type DispatchService = ReturnType<typeof makeDispatchService>;
