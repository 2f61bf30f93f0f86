import { DomainError, NotFoundError, ValidationError, zodIssues } from '../domain/errors.ts';
import { mapBounded } from '../../lib/concurrency.ts';
import { mapLegacySchedule } from '../domain/legacy/legacy-mapping.ts';
import type { LegacyModel, LegacySchedule } from '../domain/legacy/legacy-schedule.ts';
import { ScheduleCreateRequest, type Schedule } from '../domain/schedule.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { LegacyMarker, LegacyMarkerRepository } from '../ports/legacy-marker-repository.ts';
import type { LegacyScheduleSource } from '../ports/legacy-schedule-source.ts';
import type { Logger } from '../ports/logger.ts';

/** The run was asked for something that cannot be done (an unknown tenant): exit 2, nothing touched. */
export class BackfillUsageError extends DomainError {
  readonly code = 'usage_error';
}

export type RowOutcome = 'migrated' | 'already_migrated' | 'skipped' | 'failed';

/** What happened to one legacy row (in a dry run: what would happen). */
export interface RowReport {
  model: LegacyModel;
  legacy_id: string;
  name: string;
  outcome: RowOutcome;
  schedule_id?: string;
  /** Why it was skipped or failed. */
  reason?: string;
  /** Things done on the way an operator should know about (a shortened name, a resumed run). */
  notes?: string[];
}

export interface TenantReport {
  tenant: string;
  migrated: number;
  already_migrated: number;
  skipped: number;
  failed: number;
  /** `cloud_monitoringschedule` rows: never migrated (DESIGN §9), counted so the operator sees them. */
  cloud_monitoring_not_migrated: number;
  rows: RowReport[];
}

export interface BackfillReport {
  dry_run: boolean;
  run_id: string;
  started_at: string;
  finished_at: string;
  totals: Omit<TenantReport, 'tenant' | 'rows'> & { tenants: number };
  tenants: TenantReport[];
}

/** Progress as the work goes: a tenant started (rows known) and each row done. */
export type BackfillProgress =
  | { kind: 'tenant'; tenant: string; index: number; tenants: number; rows: number }
  | { kind: 'row'; tenant: string; done: number; rows: number; outcome: RowOutcome }
  | { kind: 'tenant_done'; report: Omit<TenantReport, 'rows'> };

export interface BackfillOptions {
  dryRun: boolean;
  /** One tenant's schema; all tenants when omitted. */
  tenant?: string;
  onProgress?: (event: BackfillProgress) => void;
}

/** The slice of the schedule service the backfill writes through. */
export interface BackfillScheduleWriter {
  get(tenant: string, id: string): Promise<Schedule>;
  importLegacy(tenant: string, id: string, input: ScheduleCreateRequest): Promise<Schedule>;
  /** Throws the ValidationError importLegacy would (the deployment's target policy and the tenant's credentials included). */
  checkLegacy(tenant: string, input: ScheduleCreateRequest): Promise<void>;
  remove(tenant: string, id: string): Promise<void>;
}

/** What a rollback removed, and the SQL that re-enables the legacy tasks the backfill disabled. */
export interface RollbackReport {
  dry_run: boolean;
  tenants: { tenant: string; schedules_removed: number; legacy_task_ids: number[] }[];
  /** For `psql -1 -f`: re-enables those tasks and bumps last_update, per tenant schema. */
  sql: string;
}

export interface BackfillServiceDeps {
  source: LegacyScheduleSource;
  markers: LegacyMarkerRepository;
  schedules: BackfillScheduleWriter;
  clock: Clock;
  /** Mints the schedule id a marker reserves and the run id. */
  ids: Pick<IdGenerator, 'newId'>;
  logger: Logger;
  /** Rows of one tenant migrated at once. */
  concurrency?: number;
}

export type BackfillService = ReturnType<typeof makeBackfillService>;

/**
 * backfill_scan_schedules (DESIGN §9): copies legacy Secret Scan and Continuous Network schedules
 * into the schedule service, then disables their celery tasks.
 *
 * Per row, in this order, each step idempotent: claim a marker (a conditional put that reserves the
 * schedule id), create the schedule with that id through the schedule service (so its trigger is
 * provisioned and every API rule applies), disable the legacy task, mark the marker done. Two runs
 * racing for a row see one claim win; a run that died after any step is completed by the next one,
 * which finds the marker and the schedule by id and never creates a second. A skipped or failed
 * row leaves its legacy task enabled, so nothing stops firing.
 */
export function makeBackfillService({ source, markers, schedules, clock, ids, logger, concurrency = 4 }: BackfillServiceDeps) {
  async function scheduleExists(tenant: string, id: string): Promise<boolean> {
    try {
      await schedules.get(tenant, id);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  /** Creates the marker's schedule unless it exists; false when it already did. */
  async function ensureSchedule(marker: LegacyMarker, request: ScheduleCreateRequest): Promise<boolean> {
    if (await scheduleExists(marker.tenant, marker.scheduleId)) return false;
    try {
      await schedules.importLegacy(marker.tenant, marker.scheduleId, request);
      return true;
    } catch (error) {
      // Another run holding the same marker created it between our read and our write.
      if (await scheduleExists(marker.tenant, marker.scheduleId)) return false;
      throw error;
    }
  }

  /** The schedule exists: disable the legacy task if the marker says so, then close the marker. */
  async function finish(marker: LegacyMarker): Promise<boolean> {
    const disabledNow = marker.disablesLegacyTask ? await source.setTaskEnabled(marker.tenant, marker.legacyTaskId, false) : false;
    await markers.markDone(marker.tenant, marker.model, marker.legacyId);
    return disabledNow;
  }

  async function requestOf(
    tenant: string,
    row: LegacySchedule,
  ): Promise<{ ok: true; request: ScheduleCreateRequest; notes: string[] } | { ok: false; reason: string }> {
    const mapping = mapLegacySchedule(row);
    if (!mapping.ok) return mapping;
    // The API's own validation: the request schema, then the cross-field rules and the
    // deployment's target policy, as the schedule service applies them.
    const parsed = ScheduleCreateRequest.safeParse(mapping.request);
    if (!parsed.success) return { ok: false, reason: describeIssues(zodIssues(parsed.error)) };
    try {
      await schedules.checkLegacy(tenant, parsed.data);
    } catch (error) {
      if (error instanceof ValidationError) return { ok: false, reason: describeIssues(error.details) };
      throw error;
    }
    return { ok: true, request: parsed.data, notes: mapping.notes };
  }

  async function migrateRow(tenant: string, row: LegacySchedule, dryRun: boolean, runId: string): Promise<RowReport> {
    const base = { model: row.model, legacy_id: row.id, name: row.name };
    let marker = await markers.get(tenant, row.model, row.id);
    const mapped = await requestOf(tenant, row);

    if (marker === null) {
      if (!mapped.ok) return { ...base, outcome: 'skipped', reason: mapped.reason };
      if (dryRun) return { ...base, outcome: 'migrated', ...notesOf(mapped.notes) };
      const claim: LegacyMarker = {
        tenant,
        model: row.model,
        legacyId: row.id,
        scheduleId: ids.newId('sch'),
        legacyTaskId: row.task!.id,
        disablesLegacyTask: row.task!.enabled,
        state: 'pending',
        claimedAt: clock.now().toISOString(),
        runId,
      };
      if (await markers.claim(claim)) {
        const created = await ensureSchedule(claim, mapped.request);
        await finish(claim);
        logger.info('legacy schedule migrated', { tenant, schedule_id: claim.scheduleId, model: row.model, legacy_id: row.id, created });
        // "migrated" counts the run that created the schedule, so concurrent runs add up to one per row.
        if (created) return { ...base, outcome: 'migrated', schedule_id: claim.scheduleId, ...notesOf(mapped.notes) };
        return { ...base, outcome: 'already_migrated', schedule_id: claim.scheduleId, notes: ['a concurrent run created the schedule'] };
      }
      // Another run claimed it between our read and our claim: carry on with its marker.
      marker = await markers.get(tenant, row.model, row.id);
      if (marker === null) throw new Error('the marker claimed by another run is gone');
    }

    const already = { ...base, outcome: 'already_migrated' as const, schedule_id: marker.scheduleId };
    if (marker.state === 'done') return already;
    if (dryRun) return { ...already, notes: ['an earlier run stopped before finishing this row; a real run completes it'] };
    // Pending: another run is working on it, or one died part-way. Every step is idempotent.
    let created = false;
    if (!(await scheduleExists(tenant, marker.scheduleId))) {
      if (!mapped.ok) return { ...base, outcome: 'skipped', reason: mapped.reason, schedule_id: marker.scheduleId };
      created = await ensureSchedule(marker, mapped.request);
    }
    const disabledNow = await finish(marker);
    logger.info('legacy schedule completed', {
      tenant,
      schedule_id: marker.scheduleId,
      model: row.model,
      legacy_id: row.id,
      created,
      disabled_now: disabledNow,
    });
    if (created)
      return {
        ...base,
        outcome: 'migrated',
        schedule_id: marker.scheduleId,
        notes: ['created the schedule an earlier or concurrent run had reserved', ...(mapped.ok ? mapped.notes : [])],
      };
    return { ...already, ...notesOf(disabledNow ? ['disabled the legacy task an earlier run left enabled'] : []) };
  }

  async function migrateTenant(
    tenant: string,
    dryRun: boolean,
    runId: string,
    onProgress: (event: BackfillProgress) => void,
    index: number,
    tenants: number,
  ): Promise<TenantReport> {
    const rows = await source.listSchedules(tenant);
    const cloud = await source.countCloudMonitoringSchedules(tenant);
    onProgress({ kind: 'tenant', tenant, index, tenants, rows: rows.length });
    let done = 0;
    const reports = await mapBounded(rows, concurrency, async (row): Promise<RowReport> => {
      let report: RowReport;
      try {
        report = await migrateRow(tenant, row, dryRun, runId);
      } catch (error) {
        logger.error('legacy schedule failed', { tenant, model: row.model, legacy_id: row.id, error });
        report = { model: row.model, legacy_id: row.id, name: row.name, outcome: 'failed', reason: failureReason(error) };
      }
      done += 1;
      onProgress({ kind: 'row', tenant, done, rows: rows.length, outcome: report.outcome });
      return report;
    });
    const count = (outcome: RowOutcome) => reports.filter((r) => r.outcome === outcome).length;
    const report: TenantReport = {
      tenant,
      migrated: count('migrated'),
      already_migrated: count('already_migrated'),
      skipped: count('skipped'),
      failed: count('failed'),
      cloud_monitoring_not_migrated: cloud,
      rows: reports,
    };
    const { rows: _rows, ...summary } = report;
    onProgress({ kind: 'tenant_done', report: summary });
    return report;
  }

  async function selectTenants(tenant: string | undefined): Promise<string[]> {
    const known = (await source.listTenants()).map((t) => t.schema);
    if (tenant === undefined) return known;
    if (!known.includes(tenant))
      throw new BackfillUsageError(`unknown tenant ${JSON.stringify(tenant)}: public.tenants_tenant has no such schema_name`);
    return [tenant];
  }

  return {
    /**
     * Undoes the backfill for one tenant or all: deletes every schedule a marker names (through the
     * schedule service, so its trigger goes too) and the markers, and returns the SQL that
     * re-enables the legacy tasks the backfill disabled. Schedules go first, so nothing fires twice;
     * until the SQL runs, those scans do not fire at all.
     */
    async rollback({ dryRun, tenant }: { dryRun: boolean; tenant?: string }): Promise<RollbackReport> {
      const tenants: RollbackReport['tenants'] = [];
      for (const schema of await selectTenants(tenant)) {
        const found: LegacyMarker[] = [];
        for await (const marker of markers.list(schema)) found.push(marker);
        if (!dryRun) {
          for (const marker of found) {
            try {
              await schedules.remove(schema, marker.scheduleId);
            } catch (error) {
              if (!(error instanceof NotFoundError)) throw error;
            }
            await markers.delete(schema, marker.model, marker.legacyId);
          }
        }
        const taskIds = found
          .filter((m) => m.disablesLegacyTask)
          .map((m) => m.legacyTaskId)
          .sort((a, b) => a - b);
        logger.info('backfill rolled back', { tenant: schema, dry_run: dryRun, schedules: found.length });
        if (found.length > 0) tenants.push({ tenant: schema, schedules_removed: found.length, legacy_task_ids: taskIds });
      }
      const sql = tenants
        .filter((t) => t.legacy_task_ids.length > 0)
        .map((t) => {
          const schema = `"${t.tenant.replaceAll('"', '""')}"`;
          return (
            `UPDATE ${schema}.django_celery_beat_periodictask SET enabled = true WHERE enabled = false AND id IN (${t.legacy_task_ids.join(', ')});\n` +
            `UPDATE ${schema}.django_celery_beat_periodictasks SET last_update = now() WHERE ident = 1;\n`
          );
        })
        .join('');
      return { dry_run: dryRun, tenants, sql: `-- Re-enables the legacy tasks the backfill disabled (run with psql -1).\n${sql}` };
    },

    /** Migrates every tenant's legacy schedules (or one tenant's), or reports what it would do. */
    async run({ dryRun, tenant, onProgress = () => {} }: BackfillOptions): Promise<BackfillReport> {
      const startedAt = clock.now().toISOString();
      const runId = ids.newId('run');
      const selected = await selectTenants(tenant);
      logger.info('backfill started', { run_id: runId, dry_run: dryRun, tenants: selected.length });
      const tenants: TenantReport[] = [];
      for (const [index, schema] of selected.entries()) {
        tenants.push(await migrateTenant(schema, dryRun, runId, onProgress, index, selected.length));
      }
      const sum = (key: 'migrated' | 'already_migrated' | 'skipped' | 'failed' | 'cloud_monitoring_not_migrated') =>
        tenants.reduce((n, t) => n + t[key], 0);
      const report: BackfillReport = {
        dry_run: dryRun,
        run_id: runId,
        started_at: startedAt,
        finished_at: clock.now().toISOString(),
        totals: {
          tenants: tenants.length,
          migrated: sum('migrated'),
          already_migrated: sum('already_migrated'),
          skipped: sum('skipped'),
          failed: sum('failed'),
          cloud_monitoring_not_migrated: sum('cloud_monitoring_not_migrated'),
        },
        tenants,
      };
      logger.info('backfill finished', { run_id: runId, dry_run: dryRun, ...report.totals });
      return report;
    },
  };
}

function notesOf(notes: string[]): { notes?: string[] } {
  return notes.length > 0 ? { notes } : {};
}

function describeIssues(issues: { field: string; message: string }[]): string {
  return issues.map((issue) => (issue.field ? `${issue.field} ${issue.message}` : issue.message)).join('; ');
}

function failureReason(error: unknown): string {
  if (error instanceof ValidationError) return describeIssues(error.details);
  if (error instanceof DomainError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
