import type { IssueRecord } from '../../shared/domain/issue.ts';
import { SEVERITIES } from '../../lib/severity.ts';

const RULES = [
  'mailscan.spf.missing',
  'mailscan.dmarc.missing',
  'mailscan.dkim.not_found',
  'mailscan.dmarc.policy_none',
  'mailscan.dnssec.unsigned',
];
const STATUSES = ['open', 'open', 'open', 'resolved', 'accepted_risk', 'false_positive'] as const;

const hex = (n: number) => n.toString(16).padStart(64, '0');

/**
 * Issue n of a tenant, open, high, one occurrence: its id and fingerprint follow n, and it was
 * last seen n minutes after 2026-03-01: the issue repository contract's issues, and the base of
 * issueOf below.
 */
export function issueRecord(tenant: string, n: number, overrides: Partial<IssueRecord> = {}): IssueRecord {
  const seen = new Date(Date.parse('2026-03-01T00:00:00.000Z') + n * 60_000).toISOString();
  return {
    id: `iss_${hex(n).slice(0, 32 - String(n).length)}${n}`.slice(0, 36),
    tenant,
    fingerprint: hex(n),
    status: 'open',
    scan_type: 'email_security',
    scan_types: [overrides.scan_type ?? 'email_security'],
    target: 'example.com',
    rule_id: 'mailscan.spf.missing',
    subject: 'example.com (spf)',
    locations: ['mail:posture'],
    assignee: null,
    history: [],
    comments: [],
    severity: 'high',
    title: `issue ${n}`,
    first_seen_at: seen,
    last_seen_at: seen,
    occurrence_count: 1,
    reopened_count: 0,
    last_scan_id: 'scan_01HZ0000000000000000000000',
    schedule_id: null,
    resolved_at: null,
    resolved_scan_id: null,
    status_reason: null,
    status_until: null,
    status_changed_at: null,
    status_changed_by: null,
    updated_at: seen,
    version: 1,
    evaluated_scan_id: 'scan_01HZ0000000000000000000000',
    evaluated_change: 'new',
    counted_scan_ids: ['scan_01HZ0000000000000000000000'],
    ...overrides,
  };
}

/** Issue n of a tenant of `count` (bench/issues.ts, the export test): 100 issues per target (equal work per target filter), the rules, severities and statuses above. */
export function issueOf(tenant: string, n: number, count: number): IssueRecord {
  const hex32 = n.toString(16).padStart(32, '0');
  const seen = new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 1000).toISOString();
  return issueRecord(tenant, n, {
    id: `iss_${hex32}`,
    fingerprint: `${hex32}${hex32}`,
    status: STATUSES[n % STATUSES.length],
    target: `host${n % Math.max(1, Math.floor(count / 100))}.example.com`,
    rule_id: RULES[n % RULES.length],
    severity: SEVERITIES[n % SEVERITIES.length],
    first_seen_at: seen,
    last_seen_at: seen,
    schedule_id: n % 2 === 0 ? 'sch_01HZ0000000000000000000000' : null,
    updated_at: seen,
  });
}
