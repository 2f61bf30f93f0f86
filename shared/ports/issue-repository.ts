import type { IssueComment, IssueHistoryEntry, IssueRecord, IssueStatus } from '../domain/issue.ts';
import type { Severity } from '../domain/scan-job.ts';
import type { ScanType } from '../domain/scan-types.ts';
import type { Page } from './page.ts';

export interface IssueFilter {
  /** Effective status: `open` includes accepted risks whose `until` is at or before `now`. */
  status?: IssueStatus;
  severity?: Severity;
  /** Issues any scan of this type has seen. */
  scanType?: ScanType;
  /** As typed: compared through `targetKey` (any case, IDN or punycode). */
  target?: string;
  /** A rule id or its beginning (shared/domain/rule-ids.ts). */
  ruleId?: string;
  scheduleId?: string;
  /**
   * Overdue only (DESIGN §15's SLA): issues of these severities first seen before their bound
   * (shared/domain/sla.ts overdueBounds); the service sets `status: 'open'` with it. A severity
   * absent here has no due date, so none of its issues match.
   */
  firstSeenBefore?: Partial<Record<Severity, string>>;
  /** The instant accepted risks are judged against (ISO 8601). */
  now: string;
}

/** What a person changes (PATCH /api/issues/{id}/): the status with its history entry, the assignee, a comment. */
export interface IssueTriage {
  status?: Pick<IssueRecord, 'status' | 'status_reason' | 'status_until' | 'status_changed_at' | 'status_changed_by'> & {
    entry: IssueHistoryEntry;
  };
  /** null unassigns. */
  assignee?: string | null;
  comment?: IssueComment;
  at: string;
}

/**
 * Port for issues: one per (tenant, fingerprint), across scans (DESIGN §15). Every method is
 * scoped to one tenant. Listings are ordered by severity (most severe first), then last seen
 * (newest first), then id; a page may hold fewer than `limit` items while a cursor says more may
 * follow (a sparse filter stops reading at a bound instead of reading the whole tenant).
 */
export interface IssueRepository {
  /** Every issue of one target, of every scan type and status: what a scan of it compares against (one issue per problem). */
  ofTarget(tenant: string, target: string): Promise<IssueRecord[]>;
  /** Writes whole issues in batches (25 a request); rewriting the same issue is harmless. */
  save(tenant: string, issues: IssueRecord[]): Promise<void>;
  get(tenant: string, id: string): Promise<IssueRecord | null>;
  /** The issues of these ids that exist, in no particular order. */
  getMany(tenant: string, ids: readonly string[]): Promise<IssueRecord[]>;
  /**
   * Sets the triage fields if the stored version is `expectedVersion`, and returns the issue as
   * stored; ConflictError when the version moved, null when the issue does not exist.
   */
  triage(tenant: string, id: string, expectedVersion: number, triage: IssueTriage): Promise<IssueRecord | null>;
  list(tenant: string, filter: IssueFilter, limit: number, cursor?: string): Promise<Page<IssueRecord>>;
  /** Which of these rule ids the tenant has at least one issue of (any status), in the order given. */
  rulesPresent(tenant: string, ruleIds: readonly string[]): Promise<string[]>;
}
