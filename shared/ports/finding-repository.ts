import type { FindingRecord } from '../domain/finding.ts';
import type { Severity } from '../domain/scan-job.ts';
import type { Page } from './page.ts';

export interface FindingFilter {
  scanId?: string;
  ruleId?: string;
  severity?: Severity;
  target?: string;
}

/** Port for findings and the per-fingerprint first-seen state. */
export interface FindingRepository {
  /** first_seen_at of each fingerprint already known to the tenant, by the target it was seen on. */
  firstSeen(tenant: string, sightings: { target: string; fingerprint: string }[]): Promise<Map<string, string>>;
  /**
   * Writes findings in batches, and the first-seen record of each fingerprint seen for the first
   * time (first_seen_at equal to last_seen_at); rewriting the same ids is harmless.
   */
  save(tenant: string, findings: FindingRecord[]): Promise<void>;
  list(tenant: string, filter: FindingFilter, limit: number, cursor?: string): Promise<Page<FindingRecord>>;
}
