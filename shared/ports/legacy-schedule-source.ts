import type { LegacySchedule } from '../domain/legacy/legacy-schedule.ts';

/** A tenant as `public.tenants_tenant` lists it. */
export interface LegacyTenant {
  schema: string;
  name: string;
}

/**
 * Port to the legacy database. Reads are plain; the only write disables (or, for a rollback,
 * re-enables) one periodic task and bumps `django_celery_beat_periodictasks.last_update`, in one
 * transaction, so a running celery beat reloads its schedule.
 */
export interface LegacyScheduleSource {
  /** Every tenant schema (never `public`), ordered by schema name. */
  listTenants(): Promise<LegacyTenant[]>;
  /** The tenant's migratable schedules (secret scans and continuous network scans), ordered by model then id. */
  listSchedules(tenant: string): Promise<LegacySchedule[]>;
  /** Rows of `cloud_monitoringschedule`: counted for the report, never migrated. */
  countCloudMonitoringSchedules(tenant: string): Promise<number>;
  /**
   * Sets the task's `enabled` to `enabled` and bumps `last_update`, in one transaction; does
   * nothing (and bumps nothing) when the task already has that value or is gone. True when it changed.
   */
  setTaskEnabled(tenant: string, taskId: number, enabled: boolean): Promise<boolean>;
}
