import type { IssueRecord } from '../../shared/domain/issue.ts';
import { SEVERITIES } from '../../shared/domain/scan-job.ts';

const RULES = [
  'mailscan.spf.missing',
  'mailscan.dmarc.missing',
  'mailscan.dkim.not_found',
  'mailscan.dmarc.policy_none',
  'mailscan.dnssec.unsigned',
];
const STATUSES = ['open', 'open', 'open', 'resolved', 'accepted_risk', 'false_positive'] as const;

/** Issue n of a tenant of `count` (bench/issues.ts, the export test): 100 issues per target (equal work per target filter), the rules, severities and statuses above. */
export function issueOf(tenant: string, n: number, count: number): IssueRecord {
  const hex = n.toString(16).padStart(32, '0');
  const seen = new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 1000).toISOString();
  return {
    id: `iss_${hex}`,
    tenant,
    fingerprint: `${hex}${hex}`,
    status: STATUSES[n % STATUSES.length],
    scan_type: 'email_security',
    target: `host${n % Math.max(1, Math.floor(count / 100))}.example.com`,
    rule_id: RULES[n % RULES.length],
    severity: SEVERITIES[n % SEVERITIES.length],
    title: `issue ${n}`,
    first_seen_at: seen,
    last_seen_at: seen,
    occurrence_count: 1,
    reopened_count: 0,
    last_scan_id: 'scan_01HZ0000000000000000000000',
    schedule_id: n % 2 === 0 ? 'sch_01HZ0000000000000000000000' : null,
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
  };
}
