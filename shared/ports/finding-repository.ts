import type { FindingRecord } from '../domain/finding.ts';
import type { Severity } from '../domain/scan-job.ts';
import type { Page } from './page.ts';

export interface FindingFilter {
  scanId?: string;
  ruleId?: string;
  severity?: Severity;
  target?: string;
}

/** Port for findings: one per (scan, fingerprint). First seen is the (IssueRepository). */
export interface FindingRepository {
  /** Writes findings in batches; rewriting the same ids is harmless. */
  save(tenant: string, findings: FindingRecord[]): Promise<void>;
  /** The newest `limit` findings of one fingerprint, newest first: an issue's occurrences. */
  occurrences(tenant: string, fingerprint: string, limit: number): Promise<FindingRecord[]>;
  list(tenant: string, filter: FindingFilter, limit: number, cursor?: string): Promise<Page<FindingRecord>>;
}
