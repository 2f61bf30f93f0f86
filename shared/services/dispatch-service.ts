import { FINISHED_STATUSES, jobForSchedule, type ScanJobRecord } from '../domain/scan-job.ts';
import type { FireMessage, ScanMessage } from '../domain/messages.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { ScanLogs } from '../ports/scan-log.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';
import { lastRunStatusOf, type ScanEngine } from './scan-engine.ts';

export interface DispatchDeps {
  scans: ScanRepository;
  schedules: ScheduleRepository;
  engine: ScanEngine;
  ids: IdGenerator;
  clock: Clock;
  scanLogs: ScanLogs;
  logger: Logger;
}


/**
 * Handles the two queue messages of DESIGN §5 and the dead-letter path. Exactly one ScanJob per
 * (schedule, scheduled time), whatever the number of deliveries, through a conditional claim.
 */
export function makeDispatchService({ scans, schedules, engine, ids, clock, scanLogs, logger }: DispatchDeps) {
  /**
   * A redelivered message whose job already finished: the worker may have died after finishing the
   * job and before the schedule heard of it, so tell the schedule again (a no-op when it already
   * knows, or when a newer scan owns it).
   */
  async function settleSchedule(job: ScanJobRecord): Promise<void> {
    if (job.schedule_id && (job.status === 'succeeded' || job.status === 'partial' || job.status === 'failed')) {
      await schedules.finishRun(job.tenant, job.schedule_id, job.id, lastRunStatusOf(job.status));
    }
  }

  return {
    /**
     * A cron fire. The job's id is derived from the fire (`ids.forFire`), so creating the job is
     * the claim: every delivery of one fire finds the same job, and exactly one creates it. The
     * common path is one conditional write on the schedule that both checks it (exists, enabled,
     * no newer scan) and returns it, then the job's insert, already running (docs/scans.md).
     */
    async handleFire(message: FireMessage, remainingMs: () => number): Promise<ScanJobRecord | null> {
      const { tenant, schedule_id: scheduleId, scheduled_time: scheduledTime } = message;
      const jobId = ids.forFire(tenant, scheduleId, scheduledTime);
      const now = clock.now().toISOString();
      const started = await schedules.startRun(tenant, scheduleId, { last_run_at: now, last_scan_id: jobId });
      if (started) {
        const job = { ...jobForSchedule(started, { id: jobId, trigger: 'cron', scheduled_time: scheduledTime, created_at: now, log: scanLogs.location(jobId) }), status: 'running' as const, started_at: now };
        if (await scans.create(job)) return engine.execute(job, remainingMs, { owned: true });
      }
      // A redelivery, an older fire than the schedule's last scan, or a schedule disabled or gone.
      const existing = await scans.get(tenant, jobId);
      if (existing) {
        if (FINISHED_STATUSES.includes(existing.status)) {
          logger.info('fire already handled', { tenant, schedule_id: scheduleId, scan_id: jobId });
          await settleSchedule(existing);
          return existing;
        }
        return engine.execute(existing, remainingMs);
      }
      const schedule = await schedules.get(tenant, scheduleId);
      if (!schedule?.enabled) {
        logger.info('fire dropped', { tenant, schedule_id: scheduleId, scheduled_time: scheduledTime, reason: schedule ? 'schedule disabled' : 'schedule deleted' });
        return null;
      }
      // The job does not exist yet: an earlier delivery died after marking the schedule, or this
      // fire is older than the schedule's last scan (then the schedule keeps the newer status).
      const job = jobForSchedule(schedule, { id: jobId, trigger: 'cron', scheduled_time: scheduledTime, created_at: now, log: scanLogs.location(jobId) });
      await scans.create(job);
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
        await settleSchedule(job);
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
        const jobId = ids.forFire(message.tenant, message.schedule_id, message.scheduled_time);
        job = await scans.get(message.tenant, jobId);
        const schedule = job ? null : await schedules.get(message.tenant, message.schedule_id);
        if (!job && schedule?.enabled) {
          job = jobForSchedule(schedule, { id: jobId, trigger: 'cron', scheduled_time: message.scheduled_time, created_at: clock.now().toISOString(), log: scanLogs.location(jobId) });
          await scans.create(job);
          await schedules.recordRun(message.tenant, schedule.id, { last_run_at: job.created_at, last_run_status: 'running', last_scan_id: job.id });
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
