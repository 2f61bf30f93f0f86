import { decodeIssueCursor, encodeIssueCursor } from '../../shared/adapters/dynamodb/issue-cursor.ts';
import { ConflictError } from '../../shared/domain/errors.ts';
import { effectiveStatus, issueSortKey, targetKey, type IssueRecord } from '../../shared/domain/issue.ts';
import { rulesMatching } from '../../shared/domain/rule-ids.ts';
import type { IssueFilter, IssueRepository, IssueTriage } from '../../shared/ports/issue-repository.ts';
import type { Page } from '../../shared/ports/page.ts';

/**
 * Issues in memory, held to the DynamoDB adapter by test/contracts/issue-repository-contract.ts:
 * the same order, filters, tenant-bound position cursors and versioned triage. It returns full
 * pages (the adapter may return short ones); callers get copies, never the stored issue.
 */
export class InMemoryIssueRepository implements IssueRepository {
  readonly rows = new Map<string, IssueRecord>();
  #key = (tenant: string, id: string) => `${tenant}/${id}`;

  async ofTarget(tenant: string, target: string): Promise<IssueRecord[]> {
    return [...this.rows.values()]
      .filter((issue) => issue.tenant === tenant && targetKey(issue.target) === targetKey(target))
      .map((issue) => ({ ...issue }));
  }

  async save(tenant: string, issues: IssueRecord[]): Promise<void> {
    for (const issue of issues) this.rows.set(this.#key(tenant, issue.id), { ...issue, tenant });
  }

  async get(tenant: string, id: string): Promise<IssueRecord | null> {
    const row = this.rows.get(this.#key(tenant, id));
    return row ? { ...row } : null;
  }

  async getMany(tenant: string, ids: readonly string[]): Promise<IssueRecord[]> {
    return [...new Set(ids)].flatMap((id) => {
      const row = this.rows.get(this.#key(tenant, id));
      return row ? [{ ...row }] : [];
    });
  }

  async triage(tenant: string, id: string, expectedVersion: number, triage: IssueTriage): Promise<IssueRecord | null> {
    const row = this.rows.get(this.#key(tenant, id));
    if (!row) return null;
    if (row.version !== expectedVersion) throw new ConflictError('the issue changed while you were editing it; read it again');
    const { entry, ...status } = triage.status ?? { entry: undefined };
    const updated: IssueRecord = {
      ...row,
      ...status,
      ...(triage.assignee === undefined ? {} : { assignee: triage.assignee }),
      history: entry ? [...(row.history ?? []), entry] : row.history,
      comments: triage.comment ? [...(row.comments ?? []), triage.comment] : row.comments,
      updated_at: triage.at,
      version: row.version + 1,
    };
    this.rows.set(this.#key(tenant, id), updated);
    return { ...updated };
  }

  async list(tenant: string, filter: IssueFilter, limit: number, cursor?: string): Promise<Page<IssueRecord>> {
    const after = cursor === undefined ? undefined : decodeIssueCursor(cursor, tenant);
    const rules = filter.ruleId === undefined ? undefined : rulesMatching(filter.ruleId);
    const matching = [...this.rows.values()]
      .filter(
        (issue) =>
          issue.tenant === tenant &&
          (filter.status === undefined || effectiveStatus(issue, filter.now) === filter.status) &&
          (filter.severity === undefined || issue.severity === filter.severity) &&
          (filter.scanType === undefined || issue.scan_type === filter.scanType || (issue.scan_types ?? []).includes(filter.scanType)) &&
          (filter.target === undefined || targetKey(issue.target) === targetKey(filter.target)) &&
          (rules === undefined || rules.includes(issue.rule_id)) &&
          (filter.scheduleId === undefined || issue.schedule_id === filter.scheduleId) &&
          (filter.firstSeenBefore === undefined || issue.first_seen_at < (filter.firstSeenBefore[issue.severity] ?? '')),
      )
      .map((issue) => ({ issue, sortKey: issueSortKey(issue) }))
      .filter(({ sortKey }) => after === undefined || sortKey > after)
      .sort((a, b) => (a.sortKey < b.sortKey ? -1 : 1));
    const page = matching.slice(0, limit);
    const next = matching.length > limit ? encodeIssueCursor(tenant, page[page.length - 1].sortKey) : null;
    return { items: page.map(({ issue }) => ({ ...issue })), nextCursor: next };
  }

  async rulesPresent(tenant: string, ruleIds: readonly string[]): Promise<string[]> {
    const present = new Set([...this.rows.values()].filter((issue) => issue.tenant === tenant).map((issue) => issue.rule_id));
    return ruleIds.filter((ruleId) => present.has(ruleId));
  }
}
