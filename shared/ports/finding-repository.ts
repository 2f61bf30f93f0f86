import type { FindingRecord } from '../domain/finding.ts';
import type { Severity } from '../domain/scan-job.ts';
import type { Page } from './schedule-repository.ts';

export interface FindingFilter {
  scanId?: string;
  ruleId?: string;
  severity?: Severity;
  target?: string;
}

/** Port for findings and the per-fingerprint first/last-seen state. */
export interface FindingRepository {
  /** first_seen_at of each fingerprint already known to the tenant. */
  firstSeen(tenant: string, fingerprints: string[]): Promise<Map<string, string>>;
  /** Writes findings and their fingerprints' state in batches; rewriting the same ids is harmless. */
  save(tenant: string, findings: FindingRecord[]): Promise<void>;
  list(tenant: string, filter: FindingFilter, limit: number, cursor?: string): Promise<Page<FindingRecord>>;
}
