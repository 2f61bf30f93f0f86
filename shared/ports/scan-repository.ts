import type { ScanStatus, ScanJobRecord } from '../domain/scan-job.ts';
import type { ScanType } from '../domain/scan-types.ts';
import type { Page } from './page.ts';

export interface ScanFilter {
  scanType?: ScanType;
  status?: ScanStatus;
  scheduleId?: string;
  sourceType?: ScanJobRecord['source_type'];
  /** As typed: compared through `targetKey` (any case, IDN or punycode), like the issues' target filter. */
  target?: string;
  /** Text the target, or one of the targets, contains: any case (`scanSearchText`). */
  search?: string;
}

/**
 * Port for ScanJobs. Every method is scoped to one tenant. A fire or an adversary step needs no claim
 * record: its job id is derived from it (`IdGenerator.forFire`), so `create` is the claim.
 */
export interface ScanRepository {
  /**
   * Inserts a job; a job with the same id already stored is left as it is (idempotent). True when
   * this call inserted it: with a scan id derived from the fire, that is the fire's claim.
   */
  create(job: ScanJobRecord): Promise<boolean>;
  get(tenant: string, id: string): Promise<ScanJobRecord | null>;
  /**
   * Writes the changed fields of a job only if its status is one of `from`; returns false when
   * the job was not in one of those states (someone else moved it on).
   */
  transition(tenant: string, id: string, from: readonly ScanStatus[], changes: Partial<ScanJobRecord>): Promise<boolean>;
  list(tenant: string, filter: ScanFilter, limit: number, cursor?: string): Promise<Page<ScanJobRecord>>;
  /** Jobs of every tenant still queued or running: for the local start-up only, never a request path (it scans). */
  listUnfinished(): AsyncIterable<ScanJobRecord>;
}
