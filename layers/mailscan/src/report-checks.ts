import { BUILT_SURFACES, catalogue, type Rule } from './catalogue.ts';
import type { Report } from './report.ts';
import type { CheckStatus } from '../../../lib/check-status.ts';

export interface ReportCheck {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
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

  return catalogue.map((rule): ReportCheck => {
    const base = { id: rule.rule_id, title: rule.title };
    const count = fired.get(rule.rule_id) ?? 0;
    if (count > 0) return { ...base, status: 'fail', detail: `${count} finding${count === 1 ? '' : 's'}` };
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
    return { ...base, status: 'pass', detail: '' };
  });
}
