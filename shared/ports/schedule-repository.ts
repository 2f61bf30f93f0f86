import type { ScanType } from '../domain/scan-types.ts';
import type { LastRunStatus, ScheduleRecord } from '../domain/schedule.ts';
import type { Page } from './page.ts';

export interface ScheduleFilter {
  scanType?: ScanType;
  enabled?: boolean;
}

/**
 * Port for schedule storage. Every method is scoped to one tenant; a row of another tenant is
 * indistinguishable from a missing one. Conditional writes raise ConflictError on a stale
 * version and QuotaExceededError when the tenant is at its quota.
 */
export interface ScheduleRepository {
  /**
   * Inserts a new row unless the tenant holds `quota` rows already (QuotaExceededError), also under
   * concurrent creates. The count is the rows themselves: a create that dies half way leaves nothing
   * to repair.
   */
  create(record: ScheduleRecord, quota: number): Promise<void>;
  get(tenant: string, id: string): Promise<ScheduleRecord | null>;
  /** Writes the editable fields if the stored version is `record.version - 1`; run fields are left alone. */
  update(record: ScheduleRecord): Promise<void>;
  /**
   * A run started (run now, a dead letter) or a job finished (`finishedRun`): sets the run fields
   * unless the row is gone or already shows a newer scan, so an older job finishing late never
   * overwrites a newer one's status, and a job the schedule never heard of is still recorded.
   */
  recordRun(
    tenant: string,
    id: string,
    run: { last_run_at: string; last_run_status: LastRunStatus; last_scan_id: string },
  ): Promise<boolean>;
  /**
   * A cron fire starts: in one conditional write, sets the run fields and returns the row as it
   * now is, if the row exists, is enabled and shows no scan as new as `last_scan_id`. Null when any
   * of that fails (deleted, disabled, a redelivery, an older fire): the caller reads and decides.
   */
  startRun(tenant: string, id: string, run: { last_run_at: string; last_scan_id: string }): Promise<ScheduleRecord | null>;
  /** Deletes the row if its stored version is `expectedVersion`. */
  delete(tenant: string, id: string, expectedVersion: number): Promise<void>;
  /** Newest first. Throws ValidationError (field `cursor`) on a cursor that is not this tenant's. */
  list(tenant: string, filter: ScheduleFilter, limit: number, cursor?: string): Promise<Page<ScheduleRecord>>;
  /** Every schedule of one tenant, or of all tenants: for reconcile and start-up only, never a request path. */
  listAll(tenant?: string): AsyncIterable<ScheduleRecord>;
  /** How many schedules the tenant holds: what the quota counts. */
  count(tenant: string): Promise<number>;
}
