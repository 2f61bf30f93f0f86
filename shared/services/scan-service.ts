import type { ScanType } from '../domain/scan-types.ts';
import type { TargetPolicy } from '../domain/network-policy.ts';
import { ConflictError, DispatchFailedError, NotFoundError, ValidationError } from '../domain/errors.ts';
import type { FindingRecord, Finding } from '../domain/finding.ts';
import {
  jobForSchedule,
  queuedJob,
  scanListItem,
  scanToWire,
  type ManualScanRequest,
  type ScanJob,
  type ScanJobRecord,
  type ScanListItem,
} from '../domain/scan-job.ts';
import { validateScanSubject } from '../domain/scan-subject.ts';
import { finishedRun, scheduleToWire, type Schedule } from '../domain/schedule.ts';
import type { Clock } from '../ports/clock.ts';
import type { FindingFilter, FindingRepository } from '../ports/finding-repository.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { Logger } from '../ports/logger.ts';
import type { MessageQueue } from '../ports/message-queue.ts';
import type { ScanLogs } from '../ports/scan-log.ts';
import { MAX_SCAN_LOG_LINES, type ScanLogView } from '../domain/scan-log.ts';
import type { ScanFilter, ScanRepository } from '../ports/scan-repository.ts';
import type { Page } from '../ports/page.ts';
import type { ScheduleRepository } from '../ports/schedule-repository.ts';
import type { ArtifactReferences } from '../ports/artifact-references.ts';
import type { CredentialReferences } from '../ports/credential-references.ts';
import { scopeArtifactIssues } from './artifact-references.ts';
import { makeCredentialReferences } from './credential-references.ts';
import { resourceClassOf } from '../domain/resource-class.ts';
import type { EngineManifest } from '../../lib/engine-manifest.ts';

/** Without a vault every scope.credential reads as missing: refused, never passed on unchecked. */
const makeNoCredentials = () => makeCredentialReferences(undefined);

export interface ScanServiceDeps {
  scans: ScanRepository;
  findings: FindingRepository;
  schedules: ScheduleRepository;
  queue: MessageQueue;
  ids: IdGenerator;
  clock: Clock;
  scanLogs: ScanLogs;
  logger: Logger;
  /** Checks the scope's artifact ids (its engine's manifest names the fields) against this tenant's ready artifacts. */
  artifacts: ArtifactReferences;
  /** Which targets the deployment refuses (default: private networks refused). */
  targetPolicy?: TargetPolicy;
  /** Scan types with a runner here; a manual scan of another type is refused (DESIGN §4). Unset: every type. */
  runnerTypes?: ReadonlySet<ScanType>;
  /** Checks scope.credential against the tenant's vault (DESIGN §16). Unset: any scope.credential is refused. */
  credentials?: CredentialReferences;
  /** The engines' manifests (resource class, memory per target) a job is admitted by; default MANIFESTS. */
  manifests?: readonly EngineManifest[];
}

export type ScanService = ReturnType<typeof makeScanService>;

/**
 * How many of a schedule's newest jobs run now looks at for one still queued. Only a run now's job
 * is ever queued (a fire's is inserted running), and this rule keeps it to one per schedule, so a
 * queued job is among the newest few.
 */
const RUN_NOW_LOOKBACK = 10;

const stripTenant = <T extends { tenant: string }>({ tenant: _tenant, ...rest }: T): Omit<T, 'tenant'> => rest;

/** Manual scans, run now, and the reads of scans and findings. */
export function makeScanService({
  scans,
  findings,
  schedules,
  queue,
  ids,
  clock,
  scanLogs,
  logger,
  artifacts,
  targetPolicy,
  runnerTypes,
  credentials = makeNoCredentials(),
  manifests,
}: ScanServiceDeps) {
  /**
   * Puts the scan message on the queue after the job is stored. When the queue refuses, the job
   * ends `failed` with the reason (and its schedule's last run too) before the 503 goes out.
   */
  async function dispatch(job: ScanJobRecord): Promise<void> {
    try {
      await queue.send({ kind: 'scan', tenant: job.tenant, scan_id: job.id }, resourceClassOf(job.scan_type));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await scans.transition(job.tenant, job.id, ['queued'], {
        status: 'failed',
        finished_at: clock.now().toISOString(),
        errors: [{ runner: 'dispatch', message: reason }],
      });
      if (job.schedule_id) await schedules.recordRun(job.tenant, job.schedule_id, finishedRun(job, 'failed'));
      scanLogs.loggerFor({ tenant: job.tenant, scan_id: job.id, schedule_id: job.schedule_id }).error('scan failed', { reason });
      throw error instanceof DispatchFailedError ? error : new DispatchFailedError('the scan queue refused the scan');
    }
  }

  return {
    async createManual(tenant: string, request: ManualScanRequest): Promise<ScanJob> {
      const { subject, issues } = await validateScanSubject(
        {
          scan_type: request.scan_type,
          target: request.target,
          targets: request.targets ?? [],
          scope: request.scope ?? {},
        },
        { targetPolicy, runnerTypes, manifests },
      );
      // The scope's artifact fields (the engine's manifest names them) must name ready artifacts
      // of this tenant with the right purpose.
      if (!issues.some((issue) => issue.field.startsWith('scope')))
        issues.push(...(await scopeArtifactIssues(artifacts, tenant, request.scan_type, request.scope ?? {})));
      // scope.credential must name a credential of this tenant, of a kind the type takes, allowed to every target's host.
      if (issues.length === 0)
        issues.push(...(await credentials.checkScope(tenant, subject.scan_type, subject.scope, [subject.target, ...subject.targets])));
      if (issues.length > 0) throw new ValidationError('the scan is not valid', issues);

      const id = ids.newId('scan');
      const job = queuedJob({
        id,
        tenant,
        scan_type: subject.scan_type,
        target: subject.target,
        targets: subject.targets,
        scope: subject.scope,
        source_type: 'manual',
        schedule_id: null,
        trigger: 'manual',
        scheduled_time: null,
        created_at: clock.now().toISOString(),
        log: scanLogs.location(id, resourceClassOf(request.scan_type)),
      });
      await scans.create(job);
      await dispatch(job);
      logger.info('manual scan queued', { tenant, scan_id: id });
      return scanToWire(job);
    },

    /** Run now: a synchronous fire. `enabled` never changes. */
    async runNow(tenant: string, scheduleId: string): Promise<{ scan: ScanJob; schedule: Schedule }> {
      const schedule = await schedules.get(tenant, scheduleId);
      if (!schedule) throw new NotFoundError(`schedule ${scheduleId} not found`);
      // One waiting run per schedule: a client repeating run now queues nothing more (docs/scans.md).
      const waiting = (await scans.list(tenant, { scheduleId }, RUN_NOW_LOOKBACK)).items.find((job) => job.status === 'queued');
      if (waiting) throw new ConflictError(`scan ${waiting.id} of this schedule is still queued; run now again once it has started`);
      const now = clock.now().toISOString();
      const id = ids.newId('scan');
      const job = jobForSchedule(schedule, {
        id,
        trigger: 'run_now',
        scheduled_time: now,
        created_at: now,
        log: scanLogs.location(id, resourceClassOf(schedule.scan_type)),
      });
      await scans.create(job);
      await schedules.recordRun(tenant, scheduleId, { last_run_at: now, last_run_status: 'running', last_scan_id: job.id });
      await dispatch(job);
      logger.info('run now queued', { tenant, schedule_id: scheduleId, scan_id: job.id });
      const current = await schedules.get(tenant, scheduleId);
      return { scan: scanToWire(job), schedule: scheduleToWire(current ?? schedule, clock.now()) };
    },

    async getScan(tenant: string, id: string): Promise<ScanJob> {
      const job = await scans.get(tenant, id);
      if (!job) throw new NotFoundError(`scan ${id} not found`);
      return scanToWire(job);
    },

    /** The scan's log lines, for this tenant's scans only (another tenant's id is not found). */
    async getScanLog(tenant: string, id: string): Promise<ScanLogView> {
      const job = await scans.get(tenant, id);
      if (!job) throw new NotFoundError(`scan ${id} not found`);
      const read = await scanLogs.read(tenant, id, MAX_SCAN_LOG_LINES, job.log);
      return { scan_id: id, readable: read !== null, items: read?.lines ?? [], truncated: read?.truncated ?? false, location: job.log };
    },

    /** Summaries (no checks or errors: GET /api/scans/{id}/ has them), newest first. */
    async listScans(tenant: string, filter: ScanFilter, limit: number, cursor?: string): Promise<Page<ScanListItem>> {
      const page = await scans.list(tenant, filter, limit, cursor);
      return { items: page.items.map((job) => scanListItem(scanToWire(job))), nextCursor: page.nextCursor };
    },

    async listFindings(tenant: string, filter: FindingFilter, limit: number, cursor?: string): Promise<Page<Finding>> {
      const page = await findings.list(tenant, filter, limit, cursor);
      return { items: page.items.map((record: FindingRecord) => stripTenant(record)), nextCursor: page.nextCursor };
    },
  };
}
