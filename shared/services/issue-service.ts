import { NotFoundError, ValidationError } from '../domain/errors.ts';
import {
  effectiveStatus,
  issueSortKey,
  issueView,
  type IssueOccurrence,
  type IssueRecord,
  type IssueStatusChange,
  type IssueView,
} from '../domain/issue.ts';
import { NO_SLA, overdueBounds, type SlaSettings, type SlaView } from '../domain/sla.ts';
import type { SlaRepository } from '../ports/sla-repository.ts';
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
  /** The tenant's per-severity SLA: due dates and the overdue filter. */
  sla: SlaRepository;
  clock: Clock;
  logger: Logger;
}

/** Occurrences an issue's page shows: the newest sightings, each with its evidence. */
export const OCCURRENCES_SHOWN = 50;
/** Issues read per page while exporting. */
const EXPORT_PAGE = 200;

export type IssueService = ReturnType<typeof makeIssueService>;

/** The API's filters: the repository's, and `overdue` (open and past the due date under the tenant's SLA). */
export type IssueListFilter = Omit<IssueFilter, 'now' | 'firstSeenBefore'> & { overdue?: boolean };

/** The issues of DESIGN §15: list, read with occurrences, triage, export, and what a scan changed. */
export function makeIssueService({ issues, findings, scans, sla: slas, clock, logger }: IssueServiceDeps) {
  const now = () => clock.now().toISOString();
  const slaOf = async (tenant: string): Promise<SlaView> => (await slas.get(tenant)) ?? NO_SLA;

  /**
   * The repository's filter for the API's: `overdue` becomes open issues first seen before their
   * severity's bound; null when nothing can match (no severity has days, or another status asked).
   */
  function storedFilter(filter: IssueListFilter, sla: SlaView, at: string): IssueFilter | null {
    const { overdue, ...rest } = filter;
    if (!overdue) return { ...rest, now: at };
    const bounds = overdueBounds(sla, at);
    if (Object.keys(bounds).length === 0 || (rest.status !== undefined && rest.status !== 'open')) return null;
    return { ...rest, status: 'open', firstSeenBefore: bounds, now: at };
  }

  async function found(tenant: string, id: string): Promise<IssueRecord> {
    const issue = await issues.get(tenant, id);
    if (!issue) throw new NotFoundError(`issue ${id} not found`);
    return issue;
  }

  return {
    async list(tenant: string, filter: IssueListFilter, limit: number, cursor?: string): Promise<Page<IssueView>> {
      const at = now();
      const sla = await slaOf(tenant);
      const stored = storedFilter(filter, sla, at);
      if (stored === null) return { items: [], nextCursor: null };
      const page = await issues.list(tenant, stored, limit, cursor);
      return { items: page.items.map((issue) => issueView(issue, at, sla)), nextCursor: page.nextCursor };
    },

    /** The tenant's SLA (every severity null until it sets one). */
    async getSla(tenant: string): Promise<SlaView> {
      return slaOf(tenant);
    },

    /** Replaces the tenant's SLA: every issue's due date follows at once (due dates are computed on read). */
    async setSla(tenant: string, days: SlaSettings, actor: string): Promise<SlaView> {
      const view: SlaView = { ...days, updated_at: now(), updated_by: actor };
      await slas.put(tenant, view);
      logger.info('sla set', { tenant, by: actor, ...days });
      return view;
    },

    async get(
      tenant: string,
      id: string,
    ): Promise<IssueView & { occurrences: IssueOccurrence[]; history: IssueRecord['history']; comments: IssueRecord['comments'] }> {
      const [issue, sla] = await Promise.all([found(tenant, id), slaOf(tenant)]);
      const sightings = await findings.occurrences(tenant, issue.fingerprint, OCCURRENCES_SHOWN);
      return {
        ...issueView(issue, now(), sla),
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
    async triage(tenant: string, id: string, change: IssueStatusChange, actor: string): Promise<IssueView> {
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
      return issueView(updated, at, await slaOf(tenant));
    },

    /** The catalogue rules the tenant has at least one issue of, by id (one probe per catalogue rule). */
    async rules(tenant: string): Promise<{ rule_id: string; title: string }[]> {
      const present = new Set(await issues.rulesPresent(tenant, KNOWN_RULE_IDS));
      return KNOWN_RULES.filter((rule) => present.has(rule.rule_id)).map((rule) => ({ ...rule }));
    },

    /** The filtered list as CSV, every page in listing order: one chunk per page read (the column names with the first), so only a page is ever held. */
    async *exportCsv(tenant: string, filter: IssueListFilter): AsyncIterable<string> {
      const at = now();
      const sla = await slaOf(tenant);
      const stored = storedFilter(filter, sla, at);
      let chunk = csvLine(ISSUE_CSV_COLUMNS);
      let cursor: string | undefined;
      do {
        const page = stored === null ? { items: [], nextCursor: null } : await issues.list(tenant, stored, EXPORT_PAGE, cursor);
        for (const record of page.items) {
          const issue = issueView(record, at, sla);
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
      const sla = await slaOf(tenant);
      const items = (['new', 'reopened', 'resolved'] as const).flatMap((change) =>
        ids[change]
          .flatMap((id) => {
            const issue = current.get(id);
            return issue ? [{ change, issue }] : [];
          })
          .sort((a, b) => (issueSortKey(a.issue) < issueSortKey(b.issue) ? -1 : 1))
          .map(({ issue }) => ({ change, issue: issueView(issue, at, sla) })),
      );
      return { scan_id: job.id, changes: job.changes, items, truncated: ids.truncated };
    },
  };
}
