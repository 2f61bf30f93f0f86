import { DispatchFailedError, NotFoundError, ValidationError, type FieldIssue } from '../domain/errors.ts';
import type { FindingRecord, Finding } from '../domain/finding.ts';
import { queuedJob, type ManualScanRequest, type ScanJob, type ScanJobRecord } from '../domain/scan-job.ts';
import { validateTarget } from '../domain/scan-types.ts';
import type { Schedule } from '../domain/schedule.ts';
import { checkScope } from '../domain/scope.ts';
import type { Clock } from '../ports/clock.ts';
import type { FindingFilter, FindingRepository } from '../ports/finding-repository.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { MessageQueue } from '../ports/message-queue.ts';
import type { ScanLogs } from '../ports/scan-log.ts';
import type { ScanFilter, ScanRepository } from '../ports/scan-repository.ts';
import type { Page, ScheduleRepository } from '../ports/schedule-repository.ts';
import { jobForSchedule } from './dispatch-service.ts';
import { scheduleToWire } from './schedule-service.ts';

export interface ScanServiceDeps {
  scans: ScanRepository;
  findings: FindingRepository;
  schedules: ScheduleRepository;
  queue: MessageQueue;
  ids: IdGenerator;
  clock: Clock;
  scanLogs: ScanLogs;
  logger: Logger;
}

export type ScanService = ReturnType<typeof makeScanService>;

const stripTenant = <T extends { tenant: string }>({ tenant: _tenant, ...rest }: T): Omit<T, 'tenant'> => rest;

/** Manual scans, run now, and the reads of scans and findings. */
export function makeScanService({ scans, findings, schedules, queue, ids, clock, scanLogs, logger }: ScanServiceDeps) {
  /**
   * Puts the scan message on the queue after the job is stored. When the queue refuses, the job
   * ends `failed` with the reason (and its schedule's last run too) before the 503 goes out.
   */
  async function dispatch(job: ScanJobRecord): Promise<void> {
    try {
      await queue.send({ kind: 'scan', tenant: job.tenant, scan_id: job.id });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await scans.transition(job.tenant, job.id, ['queued'], { status: 'failed', finished_at: clock.now().toISOString(), errors: [{ runner: 'dispatch', message: reason }] });
      if (job.schedule_id) await schedules.finishRun(job.tenant, job.schedule_id, job.id, 'failed');
      scanLogs.loggerFor({ tenant: job.tenant, scan_id: job.id, schedule_id: job.schedule_id }).error('scan failed', { reason });
      throw error instanceof DispatchFailedError ? error : new DispatchFailedError('the scan queue refused the scan');
    }
  }

  return {
    async createManual(tenant: string, request: ManualScanRequest): Promise<ScanJob> {
      const issues: FieldIssue[] = [];
      const target = validateTarget(request.scan_type, request.target);
      if (!target.ok) issues.push({ field: 'target', message: `${target.message} for scan_type ${request.scan_type}` });
      const targets = (request.targets ?? []).map((entry, index) => {
        const result = validateTarget(request.scan_type, entry);
        if (!result.ok) issues.push({ field: `targets.${index}`, message: result.message });
        return result.ok ? result.value : entry;
      });
      issues.push(...checkScope(request.scan_type, request.scope ?? {}, { allowLegacyKeys: false }));
      if (issues.length > 0) throw new ValidationError('the scan is not valid', issues);

      const id = ids.newId('scan');
      const job = queuedJob({
        id,
        tenant,
        scan_type: request.scan_type,
        target: target.ok ? target.value : request.target,
        targets,
        scope: request.scope ?? {},
        source_type: 'manual',
        schedule_id: null,
        trigger: 'manual',
        scheduled_time: null,
        created_at: clock.now().toISOString(),
        log: scanLogs.location(id),
      });
      await scans.create(job);
      await dispatch(job);
      logger.info('manual scan queued', { tenant, scan_id: id });
      return stripTenant(job);
    },

    /** Run now: a synchronous fire. `enabled` never changes. */
    async runNow(tenant: string, scheduleId: string): Promise<{ scan: ScanJob; schedule: Schedule }> {
      const schedule = await schedules.get(tenant, scheduleId);
      if (!schedule) throw new NotFoundError(`schedule ${scheduleId} not found`);
      const now = clock.now().toISOString();
      const job = jobForSchedule(schedule, ids.newId('scan'), 'run_now', now, now, scanLogs);
      await scans.create(job);
      await schedules.recordRun(tenant, scheduleId, { last_run_at: now, last_run_status: 'running', last_scan_id: job.id });
      await dispatch(job);
      logger.info('run now queued', { tenant, schedule_id: scheduleId, scan_id: job.id });
      const current = await schedules.get(tenant, scheduleId);
      return { scan: stripTenant(job), schedule: scheduleToWire(current ?? schedule, clock.now()) };
    },

    async getScan(tenant: string, id: string): Promise<ScanJob> {
      const job = await scans.get(tenant, id);
      if (!job) throw new NotFoundError(`scan ${id} not found`);
      return stripTenant(job);
    },

    async listScans(tenant: string, filter: ScanFilter, limit: number, cursor?: string): Promise<Page<ScanJob>> {
      const page = await scans.list(tenant, filter, limit, cursor);
      return { items: page.items.map(stripTenant), nextCursor: page.nextCursor };
    },

    async listFindings(tenant: string, filter: FindingFilter, limit: number, cursor?: string): Promise<Page<Finding>> {
      const page = await findings.list(tenant, filter, limit, cursor);
      return { items: page.items.map((record: FindingRecord) => stripTenant(record)), nextCursor: page.nextCursor };
    },
  };
}
