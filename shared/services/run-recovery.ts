import { timeOfId } from '../domain/ids.ts';
import type { FireMessage } from '../domain/messages.ts';
import { FINISHED_STATUSES } from '../domain/scan-job.ts';
import { finishedRun, lastRunStatusOf, type ScheduleRecord } from '../domain/schedule.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';

/** One schedule whose run fields disagree with its newest job, and what brings them back in line. */
export type RunRepair =
  | { kind: 'record_finished'; tenant: string; schedule_id: string; scan_id: string; reason: string; run: ReturnType<typeof finishedRun> }
  | { kind: 'lost_fire'; tenant: string; schedule_id: string; scan_id: string; reason: string; fire: FireMessage | null };

/**
 * Recovery of the run fields from the newest job of a schedule (docs/scans.md, "Crashes"). A worker
 * that dies between a job's final write and the schedule's update leaves the schedule `running`;
 * one that dies between marking the schedule and inserting a fire's job leaves it naming a job
 * that does not exist. In AWS the message is still in SQS and its redelivery (or the DLQ handler)
 * settles both; the local queue loses its messages with the process, so the local start-up (and
 * reconcile, anywhere) settles them from the table instead.
 */
export function makeRunRecovery({ schedules, scans, ids }: { schedules: ScheduleRepository; scans: ScanRepository; ids: IdGenerator }) {
  /** The fire whose job id `scanId` is, if it is one of this schedule's (a run now's id is not). */
  function fireOf(row: ScheduleRecord, scanId: string): FireMessage | null {
    const at = timeOfId(scanId);
    if (!at) return null;
    // Scheduled times arrive without milliseconds (EventBridge's <aws.scheduler.scheduled-time>).
    const scheduledTime = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (ids.forFire(row.tenant, row.id, scheduledTime) !== scanId) return null;
    return { kind: 'fire', tenant: row.tenant, schedule_id: row.id, scheduled_time: scheduledTime, execution_id: `recovery-${scanId}` };
  }

  return {
    /** What `row` needs to agree with its newest job; null when it agrees or its newest job is still unfinished. */
    async inspect(row: ScheduleRecord): Promise<RunRepair | null> {
      const newest = (await scans.list(row.tenant, { scheduleId: row.id }, 1)).items[0] ?? null;
      const base = { tenant: row.tenant, schedule_id: row.id };
      if (row.last_scan_id !== null && (newest === null || row.last_scan_id > newest.id)) {
        return {
          ...base,
          kind: 'lost_fire',
          scan_id: row.last_scan_id,
          reason: 'the schedule names a job that was never stored',
          fire: fireOf(row, row.last_scan_id),
        };
      }
      if (newest === null || !FINISHED_STATUSES.includes(newest.status)) return null;
      const run = finishedRun(newest, lastRunStatusOf(newest.status as 'succeeded' | 'partial' | 'failed'));
      if (row.last_scan_id === run.last_scan_id && row.last_run_status === run.last_run_status) return null;
      return {
        ...base,
        kind: 'record_finished',
        scan_id: newest.id,
        reason: 'the newest job finished but the schedule does not say so',
        run,
      };
    },

    /** Records the finished job; a lost fire is the caller's to put back on its queue (`repair.fire`). */
    async repair(repair: RunRepair): Promise<void> {
      if (repair.kind === 'record_finished') await schedules.recordRun(repair.tenant, repair.schedule_id, repair.run);
    },
  };
}

export type RunRecovery = ReturnType<typeof makeRunRecovery>;
