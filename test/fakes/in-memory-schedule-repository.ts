import { ConflictError, NotFoundError, QuotaExceededError } from '../../shared/domain/errors.ts';
import type { ScheduleRecord } from '../../shared/domain/schedule.ts';
import type { Page, ScheduleFilter, ScheduleRepository } from '../../shared/ports/schedule-repository.ts';

/** An in-memory ScheduleRepository with the same conditional-write semantics as the DynamoDB one. */
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
    if ((await this.count(record.tenant)) >= quota) throw new QuotaExceededError('quota');
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
    const { last_run_at, last_run_status, last_scan_id } = current;
    this.rows.set(this.#key(record.tenant, record.id), { ...structuredClone(record), last_run_at, last_run_status, last_scan_id });
  }

  async recordRun(tenant: string, id: string, run: { last_run_at: string; last_run_status: ScheduleRecord['last_run_status']; last_scan_id: string }): Promise<boolean> {
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

  async finishRun(tenant: string, id: string, scanId: string, status: ScheduleRecord['last_run_status']): Promise<boolean> {
    const current = this.rows.get(this.#key(tenant, id));
    if (!current || current.last_scan_id !== scanId) return false;
    current.last_run_status = status;
    return true;
  }

  async delete(tenant: string, id: string, expectedVersion: number): Promise<void> {
    this.#maybeFail();
    const current = this.rows.get(this.#key(tenant, id));
    if (!current) throw new NotFoundError('missing');
    if (current.version !== expectedVersion) throw new ConflictError('stale');
    this.rows.delete(this.#key(tenant, id));
  }

  async list(tenant: string, filter: ScheduleFilter, limit: number, cursor?: string): Promise<Page<ScheduleRecord>> {
    const matching = [...this.rows.values()]
      .filter((row) => row.tenant === tenant)
      .filter((row) => filter.scanType === undefined || row.scan_type === filter.scanType)
      .filter((row) => filter.enabled === undefined || row.enabled === filter.enabled)
      .sort((a, b) => b.id.localeCompare(a.id))
      .filter((row) => cursor === undefined || row.id < cursor);
    const items = matching.slice(0, limit);
    return { items, nextCursor: matching.length > limit ? items[items.length - 1].id : null };
  }

  async *listAll(tenant?: string): AsyncIterable<ScheduleRecord> {
    for (const row of this.rows.values()) if (tenant === undefined || row.tenant === tenant) yield structuredClone(row);
  }

  async count(tenant: string): Promise<number> {
    return [...this.rows.values()].filter((row) => row.tenant === tenant).length;
  }

  async *counters(tenant?: string): AsyncIterable<{ tenant: string; count: number }> {
    const tenants = new Set([...this.rows.values()].map((row) => row.tenant).filter((owner) => tenant === undefined || owner === tenant));
    for (const owner of tenants) yield { tenant: owner, count: await this.count(owner) };
  }

  async recount(tenant: string): Promise<number> {
    return this.count(tenant);
  }
}
