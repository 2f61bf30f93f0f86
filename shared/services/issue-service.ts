import { NotFoundError, ValidationError } from '../domain/errors.ts';
import {
  effectiveStatus,
  issueOnWire,
  issueSortKey,
  type Issue,
  type IssueOccurrence,
  type IssueRecord,
  type IssueStatusChange,
} from '../domain/issue.ts';
import { csvLine, ISSUE_CSV_COLUMNS } from '../domain/issue-csv.ts';
import { KNOWN_RULE_IDS, KNOWN_RULES } from '../domain/rule-ids.ts';
import type { Clock } from '../ports/clock.ts';
import type { FindingRepository } from '../ports/finding-repository.ts';
import type { IssueFilter, IssueRepository } from '../ports/issue-repository.ts';
import type { Logger } from '../ports/logger.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';
import type { Page } from '../ports/page.ts';

export interface IssueServiceDeps {
  issues: IssueRepository;
  findings: FindingRepository;
  scans: ScanRepository;
  clock: Clock;
  logger: Logger;
}

/** Occurrences an issue's page shows: the newest sightings, each with its evidence. */
export const OCCURRENCES_SHOWN = 50;
/** Issues read per page while exporting. */
const EXPORT_PAGE = 200;

export type IssueService = ReturnType<typeof makeIssueService>;

/** The issues of DESIGN §15: list, read with occurrences, triage, export, and what a scan changed. */
export function makeIssueService({ issues, findings, scans, clock, logger }: IssueServiceDeps) {
  const now = () => clock.now().toISOString();

  async function found(tenant: string, id: string): Promise<IssueRecord> {
    const issue = await issues.get(tenant, id);
    if (!issue) throw new NotFoundError(`issue ${id} not found`);
    return issue;
  }

  return {
    async list(tenant: string, filter: Omit<IssueFilter, 'now'>, limit: number, cursor?: string): Promise<Page<Issue>> {
      const at = now();
      const page = await issues.list(tenant, { ...filter, now: at }, limit, cursor);
      return { items: page.items.map((issue) => issueOnWire(issue, at)), nextCursor: page.nextCursor };
    },

    async get(
      tenant: string,
      id: string,
    ): Promise<Issue & { occurrences: IssueOccurrence[]; history: IssueRecord['history']; comments: IssueRecord['comments'] }> {
      const issue = await found(tenant, id);
      const sightings = await findings.occurrences(tenant, issue.fingerprint, OCCURRENCES_SHOWN);
      return {
        ...issueOnWire(issue, now()),
        history: issue.history,
        comments: issue.comments,
        occurrences: sightings.map((finding) => ({
          finding_id: finding.id,
          scan_id: finding.scan_id,
          seen_at: finding.last_seen_at,
          severity: finding.severity,
          title: finding.title,
          description: finding.description,
          evidence: finding.evidence,
          remediation: finding.remediation,
        })),
      };
    },

    /**
     * A person's triage: accept the risk (until a date), mark a false positive, or open it again,
     * each recorded in the issue's history with who and why; assign it; comment on it.
     */
    async triage(tenant: string, id: string, change: IssueStatusChange, actor: string): Promise<Issue> {
      const at = now();
      if (change.until !== undefined && Date.parse(change.until) <= Date.parse(at))
        throw new ValidationError('until must be in the future', [{ field: 'until', message: 'must be in the future' }]);
      const issue = await found(tenant, id);
      const status = change.status;
      const updated = await issues.triage(tenant, id, issue.version, {
        at,
        ...(status === undefined
          ? {}
          : {
              status: {
                status,
                status_reason: change.reason ?? null,
                status_until: change.until === undefined ? null : new Date(change.until).toISOString(),
                status_changed_at: at,
                status_changed_by: actor,
                entry: { at, by: actor, from: effectiveStatus(issue, at), to: status, reason: change.reason ?? null },
              },
            }),
        ...(change.assignee === undefined ? {} : { assignee: change.assignee }),
        ...(change.comment === undefined ? {} : { comment: { at, by: actor, text: change.comment } }),
      });
      if (!updated) throw new NotFoundError(`issue ${id} not found`);
      logger.info('issue triaged', {
        tenant,
        issue_id: id,
        status,
        assigned: change.assignee !== undefined,
        commented: change.comment !== undefined,
        by: actor,
      });
      return issueOnWire(updated, at);
    },

    /** The catalogue rules the tenant has at least one issue of, by id (one probe per catalogue rule). */
    async rules(tenant: string): Promise<{ rule_id: string; title: string }[]> {
      const present = new Set(await issues.rulesPresent(tenant, KNOWN_RULE_IDS));
      return KNOWN_RULES.filter((rule) => present.has(rule.rule_id)).map((rule) => ({ ...rule }));
    },

    /** The filtered list as CSV, every page in listing order: one chunk per page read (the header with the first), so only a page is ever held. */
    async *exportCsv(tenant: string, filter: Omit<IssueFilter, 'now'>): AsyncIterable<string> {
      const at = now();
      let chunk = csvLine(ISSUE_CSV_COLUMNS);
      let cursor: string | undefined;
      do {
        const page = await issues.list(tenant, { ...filter, now: at }, EXPORT_PAGE, cursor);
        for (const record of page.items) {
          const issue = issueOnWire(record, at);
          chunk += csvLine(ISSUE_CSV_COLUMNS.map((column) => issue[column]));
        }
        if (chunk !== '') yield chunk;
        chunk = '';
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
    },

    /** The issues a finished scan created, reopened and resolved, each as it is now. */
    async changesOf(tenant: string, scanId: string) {
      const job = await scans.get(tenant, scanId);
      if (!job) throw new NotFoundError(`scan ${scanId} not found`);
      const ids = job.change_ids ?? { new: [], reopened: [], resolved: [], truncated: false };
      const current = new Map(
        (await issues.getMany(tenant, [...ids.new, ...ids.reopened, ...ids.resolved])).map((issue) => [issue.id, issue]),
      );
      const at = now();
      const items = (['new', 'reopened', 'resolved'] as const).flatMap((change) =>
        ids[change]
          .flatMap((id) => {
            const issue = current.get(id);
            return issue ? [{ change, issue }] : [];
          })
          .sort((a, b) => (issueSortKey(a.issue) < issueSortKey(b.issue) ? -1 : 1))
          .map(({ issue }) => ({ change, issue: issueOnWire(issue, at) })),
      );
      return { scan_id: job.id, changes: job.changes, items, truncated: ids.truncated };
    },
  };
}
