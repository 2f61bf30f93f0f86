import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { Issue } from './issue.ts';
import { severityRank } from '../../lib/severity.ts';
import { Severity, type ScanChanges, type ScanJob } from './scan-job.ts';
import { ScanType } from './scan-types.ts';
import { nameText } from './text.ts';

// Object schemas are z.lazy, built at their first parse (docs/cold-start.md).

/** The events of DESIGN §15, each `{id, type, tenant, occurred_at, data}`. */
export const EVENT_TYPES = ['scan.finished', 'issue.opened', 'issue.resolved', 'issue.reopened'] as const;
export const EventType = z.enum(EVENT_TYPES);
/** The `source` of the service's events on its EventBridge bus; the bus's rule matches it (infra/constructs/notifications.ts). */
export const EVENT_SOURCE = 'scan-service';
export type EventType = z.infer<typeof EventType>;

/** How a rule's events are sent: one message each, or one digest per hour or per day (UTC). */
export const DELIVERIES = ['each', 'digest_hourly', 'digest_daily'] as const;
export const Delivery = z.enum(DELIVERIES);
export type Delivery = z.infer<typeof Delivery>;

export interface ScanFinishedData {
  scan_id: string;
  scan_type: ScanJob['scan_type'];
  target: string;
  schedule_id: string | null;
  status: ScanJob['status'];
  changes: ScanChanges | null;
  summary: ScanJob['summary'];
  /** The scan's page: a path on the bus (`/scans/<id>`), absolute (the UI's origin) in a delivered webhook. */
  link: string;
}

export interface IssueEventData {
  scan_id: string;
  issue: Issue;
  /** Where, in words (host:port, path:line, record...): the same as `issue.subject`, said at the top. */
  subject: string;
  severity: Issue['severity'];
  /** The issue's page: a path on the bus (`/issues/<id>`), absolute (the UI's origin) in a delivered webhook. */
  link: string;
}

/** The event with its `link` made absolute against the UI's origin (what a webhook receives). */
export function withAbsoluteLink<T extends { data: object }>(event: T, appUrl: string): T {
  const data = event.data as { link?: unknown };
  if (typeof data.link !== 'string' || !data.link.startsWith('/')) return event;
  return { ...event, data: { ...event.data, link: `${appUrl.replace(/\/$/, '')}${data.link}` } };
}

export type ServiceEvent =
  | { id: string; type: 'scan.finished'; tenant: string; occurred_at: string; data: ScanFinishedData }
  | { id: string; type: 'issue.opened' | 'issue.resolved' | 'issue.reopened'; tenant: string; occurred_at: string; data: IssueEventData };

/**
 * An event's id is derived from what it is about (its type, the scan and the issue), so a
 * redelivered scan publishes the same ids again and receivers dedupe on `X-Event-Id`.
 */
export function eventIdOf(type: EventType | 'notification.test' | 'digest', ...about: string[]): string {
  return `evt_${createHash('sha256')
    .update([type, ...about].join('\u0000'))
    .digest('hex')
    .slice(0, 32)}`;
}

export const NOTIFICATION_KINDS = ['webhook', 'slack', 'email'] as const;
export const NotificationKind = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof NotificationKind>;

export const NotificationRule = z.lazy(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    kind: NotificationKind,
    /** webhook and slack: where to POST. */
    url: z.string().nullable(),
    /** email: who receives it. */
    address: z.string().nullable(),
    events: z.array(EventType),
    /** Issue events below this severity are not sent (scan.finished has no severity and always is). */
    min_severity: Severity,
    scan_types: z.array(ScanType).nullable(),
    schedule_ids: z.array(z.string()).nullable(),
    /** `each`: one message per event; a digest: one message per rule and period (docs/digests-and-sla.md). */
    delivery: Delivery,
    enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type NotificationRule = z.infer<typeof NotificationRule>;

/** Stored: the wire rule, its tenant, version, and the webhook secret (never on the wire after creation). */
export interface NotificationRuleRecord extends NotificationRule {
  tenant: string;
  version: number;
  secret: string | null;
}

const RuleFields = () => ({
  name: nameText(200),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  address: z.email().max(320).optional(),
  events: z
    .array(EventType)
    .min(1)
    .max(EVENT_TYPES.length)
    .refine((events) => new Set(events).size === events.length, 'must not repeat an event'),
  min_severity: Severity.optional(),
  scan_types: z.array(ScanType).min(1).max(20).optional(),
  schedule_ids: z.array(z.string().min(1).max(64)).min(1).max(100).optional(),
  delivery: Delivery.optional(),
  enabled: z.boolean().optional(),
});

/** POST /api/notifications/ body. */
export const CreateNotificationRule = z.lazy(() =>
  z.strictObject({ kind: NotificationKind, ...RuleFields() }).superRefine((rule, context) => {
    const wantsUrl = rule.kind !== 'email';
    if (wantsUrl && rule.url === undefined)
      context.addIssue({ code: 'custom', path: ['url'], message: `is required for kind ${rule.kind}` });
    if (!wantsUrl && rule.address === undefined)
      context.addIssue({ code: 'custom', path: ['address'], message: 'is required for kind email' });
    if (wantsUrl && rule.address !== undefined) context.addIssue({ code: 'custom', path: ['address'], message: `is only for kind email` });
    if (!wantsUrl && rule.url !== undefined)
      context.addIssue({ code: 'custom', path: ['url'], message: 'is only for kinds webhook and slack' });
  }),
);
export type CreateNotificationRule = z.infer<typeof CreateNotificationRule>;

/**
 * PATCH /api/notifications/{id}/ body: any subset of the writable fields except the kind;
 * `scan_types` or `schedule_ids` null removes that filter.
 */
export const UpdateNotificationRule = z.lazy(() => {
  const fields = RuleFields();
  return z
    .strictObject({ ...fields, scan_types: fields.scan_types.unwrap().nullable(), schedule_ids: fields.schedule_ids.unwrap().nullable() })
    .partial();
});
export type UpdateNotificationRule = z.infer<typeof UpdateNotificationRule>;

/** Fields a client may read but never send: refused as read-only rather than unknown (the kind only on PATCH). */
export const READ_ONLY_NOTIFICATION_FIELDS = ['id', 'created_at', 'updated_at', 'secret', 'tenant', 'version'] as const;

/** POST /api/notifications/ answer: the rule, and for a webhook its signing secret, shown this once. */
export const CreatedNotificationRule = z.lazy(() =>
  NotificationRule.unwrap().extend({
    secret: z.string().optional().describe('webhook only: the HMAC-SHA256 key of X-Signature-256, in this answer and never again'),
  }),
);

/** GET /api/notifications/ answer: every rule of the tenant (at most 50), oldest first. */
export const NotificationRuleList = z.lazy(() => z.object({ items: z.array(NotificationRule) }));

/** What a test delivery reports (POST /api/notifications/{id}/test/). */
export const NotificationTestResult = z.lazy(() =>
  z.object({ delivered: z.boolean(), event_id: z.string(), status_code: z.number().int().nullable(), error: z.string().nullable() }),
);
export type NotificationTestResult = z.infer<typeof NotificationTestResult>;

/** Whether `rule` wants `event`: enabled, the event's type, scan type, schedule and (issue events) severity. */
export function ruleMatches(rule: NotificationRule, event: ServiceEvent): boolean {
  if (!rule.enabled || !rule.events.includes(event.type)) return false;
  const about =
    event.type === 'scan.finished'
      ? { scan_type: event.data.scan_type, schedule_id: event.data.schedule_id }
      : { scan_type: event.data.issue.scan_type, schedule_id: event.data.issue.schedule_id };
  if (rule.scan_types !== null && !rule.scan_types.includes(about.scan_type)) return false;
  if (rule.schedule_ids !== null && (about.schedule_id === null || !rule.schedule_ids.includes(about.schedule_id))) return false;
  if (event.type !== 'scan.finished' && severityRank(event.data.issue.severity) > severityRank(rule.min_severity)) return false;
  return true;
}

/** The rule as the API shows it: no tenant, version or secret. */
export function ruleOnWire({ tenant: _tenant, version: _version, secret: _secret, ...rule }: NotificationRuleRecord): NotificationRule {
  return rule;
}
