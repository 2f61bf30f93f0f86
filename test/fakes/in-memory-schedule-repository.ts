import { keys } from '../../shared/adapters/dynamodb/keys.ts';
import { ConflictError, NotFoundError, QuotaExceededError } from '../../shared/domain/errors.ts';
import type { ScheduleRecord } from '../../shared/domain/schedule.ts';
import type { Page } from '../../shared/ports/page.ts';
import type { ScheduleFilter, ScheduleRepository } from '../../shared/ports/schedule-repository.ts';
import { pageOf, type Listing } from './in-memory-listing.ts';

/** The index and partition the DynamoDB adapter reads a listing from: a cursor is bound to them. */
function listingOf(tenant: string, filter: ScheduleFilter): Listing {
  if (filter.scanType !== undefined) return { index: 'GSI1', partition: keys.schedulesByType(tenant, filter.scanType) };
  if (filter.enabled !== undefined) return { index: 'GSI2', partition: keys.schedulesByEnabled(tenant, filter.enabled) };
  return { index: '', partition: keys.tenant(tenant), skPrefix: 'SCH#' };
}

/** A row's table and index keys, as the adapter writes them. */
function keyOf(row: ScheduleRecord): Record<string, string> {
  return {
    PK: keys.tenant(row.tenant),
    SK: keys.schedule(row.id),
    GSI1PK: keys.schedulesByType(row.tenant, row.scan_type),
    GSI1SK: row.id,
    GSI2PK: keys.schedulesByEnabled(row.tenant, row.enabled),
    GSI2SK: row.id,
  };
}

/**
 * An in-memory ScheduleRepository with the semantics of the DynamoDB one, held to it by
 * test/contracts/schedule-repository-contract.ts: conditional writes, a quota check that is atomic
 * with the insert, update() leaving the run fields and created_at alone, and the adapter's opaque
 * cursor (the same codec), bound to the tenant and the listing.
 */
export class InMemoryScheduleRepository implements ScheduleRepository {
  readonly rows = new Map<string, ScheduleRecord>();
  failNextWrite: Error | null = null;

  #key = (tenant: string, id: string) => `${tenant}/${id}`;

  #maybeFail(): void {
    const failure = this.failNextWrite;
    this.failNextWrite = null;
    if (failure) throw failure;
  }

  async create(record: ScheduleRecord, quota: number): Promise<void> {
    this.#maybeFail();
    // No await between the check and the insert: concurrent creates cannot both pass the quota.
    if (this.#countNow(record.tenant) >= quota) throw new QuotaExceededError('quota');
    if (this.rows.has(this.#key(record.tenant, record.id))) throw new ConflictError('exists');
    this.rows.set(this.#key(record.tenant, record.id), structuredClone(record));
  }

  async get(tenant: string, id: string): Promise<ScheduleRecord | null> {
    const row = this.rows.get(this.#key(tenant, id));
    return row ? structuredClone(row) : null;
  }

  async update(record: ScheduleRecord): Promise<void> {
    this.#maybeFail();
    const current = this.rows.get(this.#key(record.tenant, record.id));
    if (!current) throw new NotFoundError('missing');
    if (current.version !== record.version - 1) throw new ConflictError('stale');
    // Like the adapter's UpdateItem: the editable fields only; run fields and created_at stay.
    const { last_run_at, last_run_status, last_scan_id, created_at } = current;
    this.rows.set(this.#key(record.tenant, record.id), {
      ...structuredClone(record),
      last_run_at,
      last_run_status,
      last_scan_id,
      created_at,
    });
  }

  async recordRun(
    tenant: string,
    id: string,
    run: { last_run_at: string; last_run_status: ScheduleRecord['last_run_status']; last_scan_id: string },
  ): Promise<boolean> {
    const current = this.rows.get(this.#key(tenant, id));
    if (!current || (current.last_scan_id !== null && current.last_scan_id > run.last_scan_id)) return false;
    Object.assign(current, run);
    return true;
  }

  async startRun(tenant: string, id: string, run: { last_run_at: string; last_scan_id: string }): Promise<ScheduleRecord | null> {
    const current = this.rows.get(this.#key(tenant, id));
    if (!current || !current.enabled || (current.last_scan_id !== null && current.last_scan_id >= run.last_scan_id)) return null;
    Object.assign(current, run, { last_run_status: 'running' });
    return structuredClone(current);
  }

  async delete(tenant: string, id: string, expectedVersion: number): Promise<void> {
    this.#maybeFail();
    const current = this.rows.get(this.#key(tenant, id));
    if (!current) throw new NotFoundError('missing');
    if (current.version !== expectedVersion) throw new ConflictError('stale');
    this.rows.delete(this.#key(tenant, id));
  }

  async list(tenant: string, filter: ScheduleFilter, limit: number, cursor?: string): Promise<Page<ScheduleRecord>> {
    const rows = [...this.rows.values()].filter(
      (row) =>
        row.tenant === tenant &&
        (filter.scanType === undefined || row.scan_type === filter.scanType) &&
        (filter.enabled === undefined || row.enabled === filter.enabled),
    );
    return pageOf(tenant, listingOf(tenant, filter), rows, keyOf, limit, cursor);
  }

  async *listAll(tenant?: string): AsyncIterable<ScheduleRecord> {
    for (const row of this.rows.values()) if (tenant === undefined || row.tenant === tenant) yield structuredClone(row);
  }

  async count(tenant: string): Promise<number> {
    return this.#countNow(tenant);
  }

  #countNow(tenant: string): number {
    return [...this.rows.values()].filter((row) => row.tenant === tenant).length;
  }
}
