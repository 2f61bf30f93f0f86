import type { Coverage } from '../../../lib/report.ts';
import { BUILT_SURFACES, catalogue, type Rule } from './catalogue.ts';
import type { Report } from './report.ts';
import type { CheckStatus } from '../../../lib/check-status.ts';

export interface ReportCheck {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  coverage?: Coverage;
}

type MailCoverage = Extract<Coverage, { kind: 'mail' }>;

/** What this scan examined: the surfaces that ran and the DKIM selectors that answered (block lists are not itemised yet). */
function coverageOf(report: Omit<Report, 'checks'>): MailCoverage {
  const surfaces = report.surfaces as Record<string, { status: string } | undefined>;
  const ran = BUILT_SURFACES.filter((surface) =>
    surface === 'adversary'
      ? (report.techniques?.length ?? 0) > 0
      : surfaces[surface] !== undefined && surfaces[surface].status !== 'skipped',
  );
  const keys = (report.surfaces.posture as { dkim?: { keys?: { selector: string }[] } }).dkim?.keys ?? [];
  return { kind: 'mail', surfaces: [...ran], selectors: keys.map((key) => key.selector), lists: [] };
}

/**
 * Each finding's subject (the record in words) and locations (its surface, and its DKIM selector
 * when it has one), so a later scan resolves it only when it ran that surface and read that selector.
 */
export function placeFindings<T extends Pick<Report, 'domain' | 'findings'>>(report: T): T {
  const surfaceOf = new Map(catalogue.map((rule) => [rule.rule_id, rule.surface]));
  return {
    ...report,
    findings: report.findings.map((finding) => {
      const family = finding.rule_id.split('.')[1] ?? '';
      const selector = typeof finding.evidence.selector === 'string' ? finding.evidence.selector : undefined;
      const subject =
        selector !== undefined
          ? `${selector}._domainkey.${report.domain}`
          : family === 'dmarc'
            ? `_dmarc.${report.domain}`
            : family === 'mta_sts'
              ? `_mta-sts.${report.domain}`
              : `${report.domain} (${family})`;
      const locations = [`mail:${surfaceOf.get(finding.rule_id) ?? 'posture'}`, ...(selector !== undefined ? [`dkim:${selector}`] : [])];
      return { ...finding, subject, locations };
    }),
  };
}

/** The part of a rule id naming what it checks: `mailscan.spf.missing` → `spf`. */
const family = (rule: Rule): string => rule.rule_id.split('.')[1] ?? '';

/**
 * The report's `checks` (DESIGN §11, docs/engine-contract.md): one per catalogue rule. `fail` when
 * a finding of the rule is in the report; `skipped` when its surface did not run (not requested,
 * no technique); `error` when its surface recorded an error that may have kept it from firing;
 * else `pass`. An error names a check: it spoils the rules of that family (`spf` → the
 * `mailscan.spf.*` rules) and, when it names no family of the surface, every rule of the surface.
 * So a check is `pass` only when nothing in its way failed: an issue resolves on evidence, never on
 * a timeout (DESIGN §15).
 */
export function checksOf(report: Omit<Report, 'checks'>): ReportCheck[] {
  const fired = new Map<string, number>();
  for (const finding of report.findings) fired.set(finding.rule_id, (fired.get(finding.rule_id) ?? 0) + 1);
  const surfaces = report.surfaces as Record<string, { status: string; reason?: unknown } | undefined>;
  const families = new Map<string, Set<string>>();
  for (const rule of catalogue) (families.get(rule.surface) ?? families.set(rule.surface, new Set()).get(rule.surface)!).add(family(rule));

  const coverage = coverageOf(report);
  return catalogue.map((rule): ReportCheck => {
    const base = { id: rule.rule_id, title: rule.title };
    const count = fired.get(rule.rule_id) ?? 0;
    if (count > 0) return { ...base, status: 'fail', detail: `${count} finding${count === 1 ? '' : 's'}`, coverage };
    if (!report.domain_exists) return { ...base, status: 'error', detail: `${report.domain} does not exist (NXDOMAIN)` };
    const ran =
      rule.surface === 'adversary'
        ? (report.techniques?.length ?? 0) > 0
        : BUILT_SURFACES.includes(rule.surface) && surfaces[rule.surface] !== undefined && surfaces[rule.surface]!.status !== 'skipped';
    if (!ran) {
      const reason = surfaces[rule.surface]?.reason;
      return { ...base, status: 'skipped', detail: typeof reason === 'string' ? reason : `the ${rule.surface} surface did not run` };
    }
    const spoiled = report.errors.filter(
      (error) => error.surface === rule.surface && (error.check === family(rule) || !families.get(rule.surface)?.has(error.check)),
    );
    if (spoiled.length > 0 || surfaces[rule.surface]?.status === 'error') {
      const detail = spoiled.map((error) => `${error.check}: ${error.message}`).join('; ');
      return { ...base, status: 'error', detail: detail || `the ${rule.surface} surface ended in an error` };
    }
    return { ...base, status: 'pass', detail: passDetail(rule, report), coverage };
  });
}

/**
 * Why a check passed, in words: what the scan read for it (the SPF and DMARC records, the DKIM
 * selectors that answered) or, for the other surfaces, that the surface ran on the domain and this
 * check raised nothing. Never empty (issue 41 item 4).
 */
export function passDetail(rule: Rule, report: Omit<Report, 'checks'>): string {
  const { spf, dmarc, dkim } = report.surfaces.posture;
  switch (rule.surface === 'posture' ? family(rule) : '') {
    case 'spf':
      return spf.record ? `SPF record read: ${spf.record}` : `${report.domain} publishes no SPF record to check`;
    case 'dmarc':
      return dmarc.record
        ? `DMARC record read${dmarc.source === 'organizational' ? ' from the organizational domain' : ''}: ${dmarc.record}`
        : `${report.domain} publishes no DMARC record to check`;
    case 'dkim':
      return dkim.keys.length > 0
        ? `DKIM selector${dkim.keys.length === 1 ? '' : 's'} read: ${dkim.keys.map((key) => key.selector).join(', ')}`
        : `${dkim.selectors_probed} DKIM selector${dkim.selectors_probed === 1 ? '' : 's'} asked; no key to check`;
    default:
      return rule.surface === 'adversary'
        ? `techniques run on ${report.domain}: ${(report.techniques ?? []).join(', ')}; none found this`
        : `the ${rule.surface} checks ran on ${report.domain} and found nothing for this rule`;
  }
}
