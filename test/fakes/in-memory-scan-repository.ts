import { keys, scanKeys } from '../../shared/adapters/dynamodb/keys.ts';
import { targetDigest } from '../../shared/adapters/dynamodb/target-digest.ts';
import { targetKey } from '../../shared/domain/issue.ts';
import type { ScanJobRecord, ScanStatus } from '../../shared/domain/scan-job.ts';
import type { ScanFilter, ScanRepository } from '../../shared/ports/scan-repository.ts';
import type { Page } from '../../shared/ports/page.ts';
import { pageOf, type Listing } from './in-memory-listing.ts';

/** The listing the DynamoDB adapter reads for a filter: by target (GSI3), by schedule (GSI2), by type (GSI1), else the tenant's scans. */
function listingOf(tenant: string, filter: ScanFilter): Listing {
  if (filter.target !== undefined) return { index: 'GSI3', partition: scanKeys.scansByTarget(tenant, targetDigest(filter.target)) };
  if (filter.scheduleId !== undefined) return { index: 'GSI2', partition: scanKeys.scansBySchedule(tenant, filter.scheduleId) };
  if (filter.scanType !== undefined) return { index: 'GSI1', partition: scanKeys.scansByType(tenant, filter.scanType) };
  return { index: '', partition: keys.tenant(tenant), skPrefix: 'SCAN#' };
}

/** A job's table and index keys, as the adapter writes them (GSI2 only for a job of a schedule). */
function keyOf(job: ScanJobRecord): Record<string, string> {
  return {
    PK: keys.tenant(job.tenant),
    SK: scanKeys.scan(job.id),
    GSI1PK: scanKeys.scansByType(job.tenant, job.scan_type),
    GSI1SK: job.id,
    ...(job.schedule_id ? { GSI2PK: scanKeys.scansBySchedule(job.tenant, job.schedule_id), GSI2SK: job.id } : {}),
    GSI3PK: scanKeys.scansByTarget(job.tenant, targetDigest(job.target)),
    GSI3SK: job.id,
  };
}

/**
 * An in-memory ScanRepository with the semantics of the DynamoDB one, held to it by
 * test/contracts/scan-repository-contract.ts: an insert that is the claim (the same id again is
 * refused and changes nothing), transitions conditional on the current status, and the adapter's
 * listings and cursors. `failNext` makes the next call of a method throw, as a DynamoDB error would.
 */
export class InMemoryScanRepository implements ScanRepository {
  readonly rows = new Map<string, ScanJobRecord>();
  readonly failNext: Partial<Record<'create' | 'get' | 'transition', Error>> = {};

  #key = (tenant: string, id: string) => `${tenant}/${id}`;

  #maybeFail(method: keyof InMemoryScanRepository['failNext']): void {
    const failure = this.failNext[method];
    delete this.failNext[method];
    if (failure) throw failure;
  }

  async create(job: ScanJobRecord): Promise<boolean> {
    this.#maybeFail('create');
    // No await between the check and the insert: of concurrent creates of one id, exactly one wins.
    if (this.rows.has(this.#key(job.tenant, job.id))) return false;
    this.rows.set(this.#key(job.tenant, job.id), structuredClone(job));
    return true;
  }

  async get(tenant: string, id: string): Promise<ScanJobRecord | null> {
    this.#maybeFail('get');
    const row = this.rows.get(this.#key(tenant, id));
    return row ? structuredClone(row) : null;
  }

  async transition(tenant: string, id: string, from: readonly ScanStatus[], changes: Partial<ScanJobRecord>): Promise<boolean> {
    this.#maybeFail('transition');
    const row = this.rows.get(this.#key(tenant, id));
    if (!row || !from.includes(row.status)) return false;
    // Like the adapter's UpdateItem: the key fields stay whatever the changes say.
    const { id: _id, tenant: _tenant, ...fields } = structuredClone(changes);
    Object.assign(row, fields);
    return true;
  }

  async list(tenant: string, filter: ScanFilter, limit: number, cursor?: string): Promise<Page<ScanJobRecord>> {
    const listing = listingOf(tenant, filter);
    const rows = [...this.rows.values()].filter(
      (job) =>
        job.tenant === tenant &&
        (filter.scheduleId === undefined || job.schedule_id === filter.scheduleId) &&
        (filter.scanType === undefined || job.scan_type === filter.scanType) &&
        (filter.status === undefined || job.status === filter.status) &&
        (filter.sourceType === undefined || job.source_type === filter.sourceType) &&
        (filter.target === undefined || targetKey(job.target) === targetKey(filter.target)),
    );
    return pageOf(tenant, listing, rows, keyOf, limit, cursor);
  }

  async *listUnfinished(): AsyncIterable<ScanJobRecord> {
    for (const job of [...this.rows.values()]) if (job.status === 'queued' || job.status === 'running') yield structuredClone(job);
  }
}
