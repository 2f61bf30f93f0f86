/**
 * One endpoint's results, rule by rule, before they reach a report: tlsscan's CLI folds them into
 * its ReportBuilder, and netscan folds each TLS port's into its own. The status follows the
 * contract: a finding makes `fail`; else an error `error`; else a pass `pass`; else `skipped`.
 */
import type { CheckStatus } from '../../../../lib/check-status.ts';
import type { FindingInput, ReportBuilder } from '../../../../lib/report.ts';
import { TLS_RULE_IDS, type TlsRuleId } from './catalogue.ts';

export interface RuleResult {
  rule_id: TlsRuleId;
  status: CheckStatus;
  /** What ran, what was found, or why it was skipped or failed to complete. */
  detail: string;
  findings: FindingInput[];
  errors: string[];
}

interface Entry {
  findings: FindingInput[];
  errors: string[];
  passed: string[];
  skipped: string[];
}

export class RuleResults {
  private readonly entries = new Map<TlsRuleId, Entry>(
    TLS_RULE_IDS.map((id) => [id, { findings: [], errors: [], passed: [], skipped: [] }]),
  );

  pass(rule: TlsRuleId, detail: string): void {
    this.entries.get(rule)!.passed.push(detail);
  }

  fail(rule: TlsRuleId, finding: FindingInput): void {
    this.entries.get(rule)!.findings.push(finding);
  }

  error(rules: TlsRuleId | readonly TlsRuleId[], message: string): void {
    for (const rule of typeof rules === 'string' ? [rules] : rules) this.entries.get(rule)!.errors.push(message);
  }

  skip(rules: TlsRuleId | readonly TlsRuleId[], why: string): void {
    for (const rule of typeof rules === 'string' ? [rules] : rules) this.entries.get(rule)!.skipped.push(why);
  }

  /** Rules nothing was recorded for (a part the deadline cut short). */
  unfinished(): TlsRuleId[] {
    return TLS_RULE_IDS.filter((id) => {
      const entry = this.entries.get(id)!;
      return entry.findings.length + entry.errors.length + entry.passed.length + entry.skipped.length === 0;
    });
  }

  results(): RuleResult[] {
    return TLS_RULE_IDS.map((rule_id) => {
      const { findings, errors, passed, skipped } = this.entries.get(rule_id)!;
      if (findings.length > 0) return { rule_id, status: 'fail', detail: findings.map((f) => f.detail).join(' '), findings, errors };
      if (errors.length > 0) return { rule_id, status: 'error', detail: errors.join('; '), findings, errors };
      if (passed.length > 0) return { rule_id, status: 'pass', detail: passed.join(' '), findings, errors };
      return { rule_id, status: 'skipped', detail: skipped.join('; '), findings, errors };
    });
  }
}

/** Records an endpoint's results in a report (tlsscan's own, or netscan's for each TLS port). */
export function recordRuleResults(report: ReportBuilder, results: readonly RuleResult[]): void {
  for (const result of results) {
    for (const finding of result.findings) report.fail(result.rule_id, finding);
    if (result.errors.length > 0) report.error(result.rule_id, result.errors.join('; '));
    if (result.status === 'pass') report.pass(result.rule_id, result.detail);
    if (result.status === 'skipped') report.skip(result.rule_id, result.detail);
  }
}
