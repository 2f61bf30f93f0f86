import type { Delivery, NotificationRule, ServiceEvent } from './notification.ts';
import type { EventSummary } from './notification-message.ts';
import { titleWithSubject } from './issue-title.ts';
import { severityRank } from '../../lib/severity.ts';
import type { Severity } from './scan-job.ts';

/** One event held for a rule's digest: what the digest says of it, not the whole event. */
export interface DigestEntry {
  tenant: string;
  rule_id: string;
  /** When the digest is due: the end of its hour or UTC day. */
  period_end: string;
  event_id: string;
  type: ServiceEvent['type'];
  occurred_at: string;
  /** Issue events: the issue's severity, title with subject, and page. */
  severity: Severity | null;
  title: string;
  link: string;
}

const HOUR = 3_600_000;

/** The end of the period an event at `at` falls in: the next full hour, or the next UTC midnight. */
export function digestPeriodEnd(at: string, delivery: Exclude<Delivery, 'each'>): string {
  const ms = Date.parse(at);
  const step = delivery === 'digest_hourly' ? HOUR : 24 * HOUR;
  return new Date(Math.floor(ms / step) * step + step).toISOString();
}

/** What a digest keeps of an event. */
export function digestEntryOf(event: ServiceEvent, rule: Pick<NotificationRule, 'id' | 'delivery'>): DigestEntry {
  const delivery = rule.delivery === 'each' ? 'digest_hourly' : rule.delivery;
  const base = { tenant: event.tenant, rule_id: rule.id, period_end: digestPeriodEnd(event.occurred_at, delivery), event_id: event.id };
  if (event.type === 'scan.finished')
    return {
      ...base,
      type: event.type,
      occurred_at: event.occurred_at,
      severity: null,
      title: `Scan ${event.data.status}: ${event.data.scan_type} of ${event.data.target}`,
      link: event.data.link,
    };
  return {
    ...base,
    type: event.type,
    occurred_at: event.occurred_at,
    severity: event.data.issue.severity,
    title: titleWithSubject(event.data.issue),
    link: event.data.link,
  };
}

/** Lines a digest lists; the counts cover every event. */
export const DIGEST_LINES = 50;

const absolute = (link: string, appUrl: string) => (link.startsWith('/') ? `${appUrl.replace(/\/$/, '')}${link}` : link);

/** One rule's digest: counts by event type and severity, the most severe events first. */
export function digestOf(rule: Pick<NotificationRule, 'id' | 'name'>, entries: readonly DigestEntry[], appUrl: string) {
  const byType: Record<string, number> = {};
  const bySeverity: Record<string, number> = {};
  for (const entry of entries) {
    byType[entry.type] = (byType[entry.type] ?? 0) + 1;
    if (entry.severity) bySeverity[entry.severity] = (bySeverity[entry.severity] ?? 0) + 1;
  }
  const ordered = [...entries].sort(
    (a, b) =>
      (a.severity ? severityRank(a.severity) : 9) - (b.severity ? severityRank(b.severity) : 9) ||
      a.occurred_at.localeCompare(b.occurred_at),
  );
  const periodEnd = entries[0]?.period_end ?? '';
  const counts = Object.entries(byType)
    .map(([type, n]) => `${n} ${type}`)
    .join(', ');
  const summary: EventSummary = {
    headline: `Digest for ${rule.name}: ${entries.length} event${entries.length === 1 ? '' : 's'} (${counts}) up to ${periodEnd}`,
    link: `${appUrl.replace(/\/$/, '')}/issues`,
    facts: [
      ...Object.entries(bySeverity).map(([severity, n]): [string, string] => [severity, String(n)]),
      ...ordered
        .slice(0, DIGEST_LINES)
        .map((entry): [string, string] => [entry.severity ?? entry.type, `${entry.title} ${absolute(entry.link, appUrl)}`]),
      ...(entries.length > DIGEST_LINES ? [['and', `${entries.length - DIGEST_LINES} more`] as [string, string]] : []),
    ],
  };
  const body = {
    type: 'digest',
    rule_id: rule.id,
    period_end: periodEnd,
    count: entries.length,
    counts: { by_type: byType, by_severity: bySeverity },
    events: ordered.map((entry) => ({
      id: entry.event_id,
      type: entry.type,
      occurred_at: entry.occurred_at,
      severity: entry.severity,
      title: entry.title,
      link: absolute(entry.link, appUrl),
    })),
  };
  return { summary, body };
}
