import { FINISHED_STATUSES, jobForSchedule, type ScanJobRecord } from '../domain/scan-job.ts';
import type { AdversaryMessage, FireMessage, QueueMessage, ScanMessage } from '../domain/messages.ts';
import { adversaryRefusal, jobForAdversaryStep } from '../domain/adversary-steps.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import { noMetrics, type Metrics } from '../ports/metrics.ts';
import type { ScanLogs } from '../ports/scan-log.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';
import type { ScanEngine } from './scan-engine.ts';
import { finishedRun, lastRunStatusOf } from '../domain/schedule.ts';

export interface DispatchDeps {
  scans: ScanRepository;
  schedules: ScheduleRepository;
  engine: ScanEngine;
  ids: IdGenerator;
  clock: Clock;
  scanLogs: ScanLogs;
  logger: Logger;
  /** Fires dropped and jobs failed from the DLQ (DESIGN §10). None by default. */
  metrics?: Metrics;
}

/**
 * The job id of an adversary step, derived from (tenant, run_id, step_id) as a fire's is from its
 * schedule and time: inserting the job is the claim, so every delivery finds the same job. The
 * `adversary:` prefix keeps it apart from any schedule id.
 */
export function adversaryJobId(ids: IdGenerator, message: Pick<AdversaryMessage, 'tenant' | 'run_id' | 'step_id'>): string {
  return ids.forFire(message.tenant, `adversary:${message.run_id}`, message.step_id);
}

/**
 * Handles the three queue messages of DESIGN §5 and the dead-letter path. Exactly one ScanJob per
 * (schedule, scheduled time), whatever the number of deliveries, through a conditional claim.
 */
export function makeDispatchService({ scans, schedules, engine, ids, clock, scanLogs, logger, metrics = noMetrics }: DispatchDeps) {
  /**
   * A redelivered message whose job already finished: the worker may have died after finishing the
   * job and before the schedule heard of it, so tell the schedule again (a no-op when it already
   * knows, or when a newer scan owns it).
   */
  async function settleSchedule(job: ScanJobRecord): Promise<void> {
    if (job.schedule_id && (job.status === 'succeeded' || job.status === 'partial' || job.status === 'failed')) {
      await schedules.recordRun(job.tenant, job.schedule_id, finishedRun(job, lastRunStatusOf(job.status)));
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
        const job = {
          ...jobForSchedule(started, {
            id: jobId,
            trigger: 'cron',
            scheduled_time: scheduledTime,
            created_at: now,
            log: scanLogs.location(jobId),
          }),
          status: 'running' as const,
          started_at: now,
        };
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
      // A schedule disabled after this fire marked it still gets the job it names (a toggle lets
      // started runs finish), else it would show `running` for a job that never exists.
      if (!schedule || (!schedule.enabled && schedule.last_scan_id !== jobId)) {
        logger.info('fire dropped', {
          tenant,
          schedule_id: scheduleId,
          scheduled_time: scheduledTime,
          reason: schedule ? 'schedule disabled' : 'schedule deleted',
        });
        metrics.record('FiresDropped', 1, {});
        return null;
      }
      // The job does not exist yet: an earlier delivery died after marking the schedule, or this
      // fire is older than the schedule's last scan (then the schedule keeps the newer status).
      const job = jobForSchedule(schedule, {
        id: jobId,
        trigger: 'cron',
        scheduled_time: scheduledTime,
        created_at: now,
        log: scanLogs.location(jobId),
      });
      await scans.create(job);
      return engine.execute(job, remainingMs);
    },

    /**
     * An adversary step: exactly one ScanJob per (run_id, step_id) whatever the deliveries, with
     * `source_type` and `trigger` adversary; no schedule is touched. An unsupported technique or a
     * target that is not a domain fails the job with the reason.
     */
    async handleAdversary(message: AdversaryMessage, remainingMs: () => number): Promise<ScanJobRecord> {
      const { tenant } = message;
      const jobId = adversaryJobId(ids, message);
      let job = await scans.get(tenant, jobId);
      if (!job) {
        const fresh = jobForAdversaryStep(message, jobId, clock.now().toISOString(), scanLogs.location(jobId));
        // A concurrent delivery may have inserted it meanwhile: then read theirs.
        job = (await scans.create(fresh)) ? fresh : ((await scans.get(tenant, jobId)) ?? fresh);
        logger.info('adversary step accepted', {
          tenant,
          scan_id: job.id,
          run_id: message.run_id,
          step_id: message.step_id,
          technique: message.technique,
        });
      }
      if (FINISHED_STATUSES.includes(job.status)) {
        logger.info('adversary step already handled', { tenant, scan_id: job.id, run_id: message.run_id, step_id: message.step_id });
        return job;
      }
      const refusal = adversaryRefusal(message);
      if (refusal !== null) {
        const changes = {
          status: 'failed' as const,
          finished_at: clock.now().toISOString(),
          errors: [...job.errors, { runner: 'dispatch', message: refusal }],
        };
        await scans.transition(tenant, job.id, ['queued', 'running'], changes);
        scanLogs.loggerFor({ tenant, scan_id: job.id, schedule_id: null }).error('scan failed', { reason: refusal });
        return { ...job, ...changes };
      }
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
    async handleDeadLetter(message: QueueMessage, reason: string): Promise<void> {
      let job: ScanJobRecord | null = null;
      if (message.kind === 'scan') {
        job = await scans.get(message.tenant, message.scan_id);
      } else if (message.kind === 'adversary') {
        const jobId = adversaryJobId(ids, message);
        job = await scans.get(message.tenant, jobId);
        if (!job) {
          job = jobForAdversaryStep(message, jobId, clock.now().toISOString(), scanLogs.location(jobId));
          await scans.create(job);
        }
      } else {
        const jobId = ids.forFire(message.tenant, message.schedule_id, message.scheduled_time);
        job = await scans.get(message.tenant, jobId);
        const schedule = job ? null : await schedules.get(message.tenant, message.schedule_id);
        if (!job && schedule?.enabled) {
          job = jobForSchedule(schedule, {
            id: jobId,
            trigger: 'cron',
            scheduled_time: message.scheduled_time,
            created_at: clock.now().toISOString(),
            log: scanLogs.location(jobId),
          });
          await scans.create(job);
          await schedules.recordRun(message.tenant, schedule.id, {
            last_run_at: job.created_at,
            last_run_status: 'running',
            last_scan_id: job.id,
          });
        }
      }
      if (!job) {
        logger.warn('dead letter with no job to fail', { tenant: message.tenant, kind: message.kind });
        return;
      }
      const errors = [...job.errors, { runner: 'dispatch', message: reason }];
      const failed = await scans.transition(job.tenant, job.id, ['queued', 'running'], {
        status: 'failed',
        finished_at: clock.now().toISOString(),
        errors,
      });
      scanLogs
        .loggerFor({ tenant: job.tenant, scan_id: job.id, schedule_id: job.schedule_id })
        .error('scan failed', { reason, marked: failed });
      if (failed) metrics.record('ScansFinished', 1, { status: 'failed' });
      if (failed && job.schedule_id) await schedules.recordRun(job.tenant, job.schedule_id, finishedRun(job, 'failed'));
    },
  };
}

export type DispatchService = ReturnType<typeof makeDispatchService>;
