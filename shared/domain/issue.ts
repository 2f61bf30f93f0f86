import * as z from 'zod';
import { normaliseDomain } from '../../lib/domain-name.ts';
import { severityRank } from '../../lib/severity.ts';
import { pageQueryFields } from './page-query.ts';
import { ScanChanges, Severity } from './scan-job.ts';
import { ScanType } from './scan-types.ts';
import { dueAt, isOverdue, type SlaSettings } from './sla.ts';

// Object schemas are z.lazy, built at their first parse (docs/cold-start.md).

export const ISSUE_STATUSES = ['open', 'resolved', 'accepted_risk', 'false_positive'] as const;
export const IssueStatus = z.enum(ISSUE_STATUSES);
export type IssueStatus = z.infer<typeof IssueStatus>;

/** What one scan did to one issue (DESIGN §15). */
export const CHANGE_KINDS = ['new', 'resolved', 'reopened', 'unchanged'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const Issue = z.lazy(() =>
  z.object({
    id: z.string(),
    fingerprint: z.string(),
    status: IssueStatus,
    /** The scan type that first saw it. */
    scan_type: ScanType,
    /** Every scan type that has seen it: one issue per problem, whichever scan saw it (DESIGN §15). */
    scan_types: z.array(ScanType),
    target: z.string(),
    rule_id: z.string(),
    /** The problem's place in words: host:port, path:line, DNS record, URL path, package. */
    subject: z.string(),
    severity: Severity,
    title: z.string(),
    first_seen_at: z.string(),
    last_seen_at: z.string(),
    occurrence_count: z.number().int(),
    reopened_count: z.number().int(),
    /** The last scan that reported it. */
    last_scan_id: z.string(),
    /** The schedule of that scan, null for a manual scan. */
    schedule_id: z.string().nullable(),
    resolved_at: z.string().nullable(),
    resolved_scan_id: z.string().nullable(),
    status_reason: z.string().nullable(),
    /** accepted_risk only: the issue counts as open again from this instant. */
    status_until: z.string().nullable(),
    status_changed_at: z.string().nullable(),
    status_changed_by: z.string().nullable(),
    /** Who is on it: a user id or an email; null when nobody is. */
    assignee: z.string().nullable(),
    updated_at: z.string(),
  }),
);
export type Issue = z.infer<typeof Issue>;

/** One status change: who (a user, or `system: ...` for a scan), when, from what to what, and why. */
export const IssueHistoryEntry = z.lazy(() =>
  z.object({ at: z.string(), by: z.string(), from: IssueStatus.nullable(), to: IssueStatus, reason: z.string().nullable() }),
);
export type IssueHistoryEntry = z.infer<typeof IssueHistoryEntry>;

export const IssueComment = z.lazy(() => z.object({ at: z.string(), by: z.string(), text: z.string() }));
export type IssueComment = z.infer<typeof IssueComment>;

/** History entries an issue keeps (the newest); comments likewise. */
export const HISTORY_KEPT = 100;

/** What is stored: the wire issue, its tenant, its write version and the newest scan that evaluated it. */
export interface IssueRecord extends Issue {
  tenant: string;
  version: number;
  /** The newest scan that reported or resolved it: an older or the same scan changes nothing again. */
  evaluated_scan_id: string;
  /** What that scan did to it, so a redelivered scan counts the same change without writing. */
  evaluated_change: ChangeKind;
  /** The newest scans whose sighting occurrence_count includes (COUNTED_SCANS_KEPT of them). */
  counted_scan_ids: string[];
  /** Where it was seen, in the coverage's location forms (shared/domain/coverage.ts): a check resolves it only when it covers them all. */
  locations: string[];
  /** Every status change (DESIGN §15), oldest first; on the issue's page, not in lists. */
  history: IssueHistoryEntry[];
  comments: IssueComment[];
}

export const IssueOccurrence = z.lazy(() =>
  z.object({
    finding_id: z.string(),
    scan_id: z.string(),
    seen_at: z.string(),
    severity: Severity,
    title: z.string(),
    description: z.string(),
    evidence: z.record(z.string(), z.unknown()),
    remediation: z.string(),
  }),
);
export type IssueOccurrence = z.infer<typeof IssueOccurrence>;

/**
 * An issue as the API answers it: the stored issue with its due date from the tenant's SLA as it
 * is now (shared/domain/sla.ts), and whether it is overdue. Events carry the plain Issue: a
 * payload is a snapshot, and a due date in it would go stale at the next SLA change.
 */
export const IssueView = z.lazy(() =>
  Issue.and(
    z.object({
      /** First seen plus the severity's SLA days; null when the tenant's SLA has none for it. */
      due_at: z.string().nullable(),
      /** Open (as read now) and past due_at. */
      overdue: z.boolean(),
    }),
  ),
);
export type IssueView = z.infer<typeof IssueView>;

export const IssueDetail = z.lazy(() =>
  IssueView.and(z.object({ occurrences: z.array(IssueOccurrence), history: z.array(IssueHistoryEntry), comments: z.array(IssueComment) })),
);

export const IssueListQuery = z.lazy(() =>
  z.strictObject({
    status: IssueStatus.optional().describe('only this status (an accepted risk past its `until` counts as open)'),
    severity: Severity.optional().describe('only this severity'),
    scan_type: ScanType.optional().describe('only this scan type'),
    target: z.string().trim().min(1).max(2048).optional().describe('only this target: any case, IDN as typed or in punycode'),
    rule_id: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[A-Za-z0-9._-]+$/, 'must be a rule id or its beginning')
      .optional()
      .describe('rule id or a prefix of one (e.g. mailscan.spf)'),
    schedule_id: z.string().min(1).max(64).optional().describe('only issues last reported by this schedule'),
    overdue: z
      .literal('true', 'must be true (leave it out for every issue)')
      .transform(() => true as const)
      .optional()
      .describe("true: only open issues past their due date (the tenant's SLA, GET /api/settings/sla)"),
    ...pageQueryFields(),
  }),
);
export type IssueListQuery = z.infer<typeof IssueListQuery>;

export const IssueList = z.lazy(() => z.object({ items: z.array(IssueView), next_cursor: z.string().nullable() }));

/** GET /api/issues/rules/: the catalogue rules the tenant has issues of (the Issues page's rule picker). */
export const IssueRuleList = z.lazy(() => z.object({ items: z.array(z.object({ rule_id: z.string(), title: z.string() })) }));
export type IssueRuleList = z.infer<typeof IssueRuleList>;

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9_.:@|-]{0,199}$/;

/** PATCH /api/issues/{id}/: a person's triage, assignment or comment (DESIGN §15); at least one of them. */
export const IssueStatusChange = z.lazy(() =>
  z
    .strictObject({
      status: z.enum(['open', 'accepted_risk', 'false_positive']).optional(),
      reason: z.string().trim().min(1).max(2000).optional(),
      until: z.iso.datetime({ offset: true }).optional(),
      // One message for both forms: a union would answer "Invalid input" for a typo in either.
      assignee: z
        .string()
        .max(320, 'must be at most 320 characters')
        .refine((value) => USER_ID.test(value) || z.email().safeParse(value).success, 'must be a user id or an email')
        .nullable()
        .optional()
        .describe('a user id or an email; null unassigns'),
      comment: z.string().trim().min(1).max(4000).optional(),
    })
    .superRefine((change, context) => {
      if (change.status === undefined && change.assignee === undefined && change.comment === undefined)
        context.addIssue({ code: 'custom', path: ['status'], message: 'one of status, assignee or comment is required' });
      if (change.status === undefined && (change.reason !== undefined || change.until !== undefined))
        context.addIssue({ code: 'custom', path: ['reason'], message: 'goes with a status' });
      if (change.until !== undefined && change.status !== 'accepted_risk')
        context.addIssue({ code: 'custom', path: ['until'], message: 'is only for status accepted_risk' });
      if (change.status !== undefined && change.status !== 'open' && change.reason === undefined)
        context.addIssue({ code: 'custom', path: ['reason'], message: `is required for status ${change.status}` });
    }),
);
export type IssueStatusChange = z.infer<typeof IssueStatusChange>;

export const ScanChangeItem = z.lazy(() => z.object({ change: z.enum(['new', 'resolved', 'reopened']), issue: IssueView }));
export const ScanChangeList = z.lazy(() =>
  z.object({ scan_id: z.string(), changes: ScanChanges.nullable(), items: z.array(ScanChangeItem), truncated: z.boolean() }),
);

/** The issue of a fingerprint: deterministic, so every sighting and every redelivery names the same one. */
export function issueIdOf(fingerprint: string): string {
  return `iss_${fingerprint.slice(0, 32)}`;
}

export const IssueId = z.string().regex(/^iss_[0-9a-f]{32}$/, 'must be an id of the form iss_<32 hex digits>');

/** The status a reader sees: an accepted risk whose `until` has passed is open again. */
export function effectiveStatus(issue: Pick<Issue, 'status' | 'status_until'>, now: string): IssueStatus {
  if (issue.status === 'accepted_risk' && issue.status_until !== null && issue.status_until <= now) return 'open';
  return issue.status;
}

/**
 * How the target filter compares targets: lowercase, and every host name in punycode without a
 * trailing dot, so `Bücher.Example.` finds `xn--bcher-kva.example`. Applied to the stored target
 * and to the filter alike. Non-host targets (CIDRs, aliases) are only lowercased.
 */
export function targetKey(target: string): string {
  const trimmed = target.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    try {
      return new URL(trimmed).href.toLowerCase();
    } catch {
      return trimmed.toLowerCase();
    }
  }
  const hostPort = /^([^/:\s]+)(:\d{1,5})?$/.exec(trimmed);
  if (hostPort) {
    const domain = normaliseDomain(hostPort[1]);
    if (domain !== null) return `${domain}${hostPort[2] ?? ''}`;
  }
  return trimmed.toLowerCase();
}

/** Milliseconds after the epoch fit 13 digits until the year 2286. */
const LATEST = 9_999_999_999_999;

/**
 * An issue's place in every listing: severity (most severe first), then last seen (newest first),
 * then id. Ascending order of this string is the listing's order, so one index query reads it
 * sorted and one string is a cursor in any of the listing's index partitions.
 */
export function issueSortKey(issue: Pick<Issue, 'severity' | 'last_seen_at' | 'id'>): string {
  const inverted = String(LATEST - Date.parse(issue.last_seen_at)).padStart(13, '0');
  return `${severityRank(issue.severity)}#${inverted}#${issue.id}`;
}

export const ISSUE_SORT_KEY = /^[0-4]#[0-9]{13}#iss_[0-9a-f]{32}$/;

/** The fields of an issue on the wire (stored bookkeeping left out) with its effective status. */
export function issueOnWire(record: IssueRecord, now: string): Issue {
  const {
    tenant: _tenant,
    version: _version,
    evaluated_scan_id: _scan,
    evaluated_change: _change,
    counted_scan_ids: _counted,
    locations: _locations,
    history: _history,
    comments: _comments,
    ...issue
  } = record;
  return { ...issue, status: effectiveStatus(record, now) };
}

/** The issue as the API answers it: on the wire, with its due date under `sla` and whether it is overdue at `now`. */
export function issueView(record: IssueRecord, now: string, sla: Pick<SlaSettings, Severity>): IssueView {
  const issue = issueOnWire(record, now);
  const due = dueAt(issue, sla);
  return { ...issue, due_at: due, overdue: isOverdue(issue.status, due, now) };
}
