/**
 * Results per (rule, domain) before they become the report's checks: the target and its
 * `extra_domains` share one check per rule (DESIGN §11), and a check's coverage names the domains
 * on which that rule ran to completion (`mail` coverage with an `m365:<domain>` surface each;
 * findings carry `mail:m365:<domain>`), so a scan of fewer domains never resolves an issue on a
 * domain it did not look at.
 */
import type { FindingInput, ReportBuilder } from '../../../lib/report.ts';
import type { M365RuleId } from './catalogue.ts';

type Outcome =
  | { kind: 'pass'; detail: string }
  | { kind: 'fail'; finding: Omit<FindingInput, 'locations'> }
  | { kind: 'error'; message: string }
  | { kind: 'skip'; why: string };

export class Outcomes {
  private readonly results = new Map<M365RuleId, Map<string, Outcome[]>>();

  private add(rule: M365RuleId, domain: string, outcome: Outcome): void {
    let byDomain = this.results.get(rule);
    if (!byDomain) this.results.set(rule, (byDomain = new Map<string, Outcome[]>()));
    const list = byDomain.get(domain) ?? [];
    list.push(outcome);
    byDomain.set(domain, list);
  }

  pass(rules: M365RuleId | readonly M365RuleId[], domain: string, detail: string): void {
    for (const rule of typeof rules === 'string' ? [rules] : rules) this.add(rule, domain, { kind: 'pass', detail });
  }

  fail(rule: M365RuleId, domain: string, finding: Omit<FindingInput, 'locations'>): void {
    this.add(rule, domain, { kind: 'fail', finding });
  }

  error(rules: M365RuleId | readonly M365RuleId[], domain: string, message: string): void {
    for (const rule of typeof rules === 'string' ? [rules] : rules) this.add(rule, domain, { kind: 'error', message });
  }

  skip(rules: M365RuleId | readonly M365RuleId[], domain: string, why: string): void {
    for (const rule of typeof rules === 'string' ? [rules] : rules) this.add(rule, domain, { kind: 'skip', why });
  }

  /** Whether the rule has any result for the domain yet. */
  has(rule: M365RuleId, domain: string): boolean {
    return (this.results.get(rule)?.get(domain)?.length ?? 0) > 0;
  }

  /** Every rule without a result on `domain` errors with `message` (the deadline passed). */
  errorUnfinished(rules: readonly M365RuleId[], domain: string, message: string): void {
    for (const rule of rules) if (!this.has(rule, domain)) this.error(rule, domain, message);
  }

  /** Writes one check per rule into the report. */
  flush(report: ReportBuilder): void {
    for (const [rule, byDomain] of this.results) {
      const completed: string[] = [];
      const details: string[] = [];
      const skips: string[] = [];
      for (const [domain, outcomes] of byDomain) {
        const errors = outcomes.filter((outcome) => outcome.kind === 'error');
        for (const outcome of outcomes) {
          if (outcome.kind === 'fail') report.fail(rule, { ...outcome.finding, locations: [`mail:m365:${domain}`] });
          else if (outcome.kind === 'error') report.error(rule, `${domain}: ${outcome.message}`);
          else if (outcome.kind === 'pass') details.push(`${domain}: ${outcome.detail}`);
          else skips.push(`${domain}: ${outcome.why}`);
        }
        if (errors.length === 0 && outcomes.some((outcome) => outcome.kind === 'pass' || outcome.kind === 'fail')) completed.push(domain);
      }
      if (completed.length > 0) {
        report.examined(rule, { kind: 'mail', surfaces: completed.map((domain) => `m365:${domain}`), selectors: [], lists: [] });
        // A rule that only failed has no pass to word: its findings say what was found.
        if (details.length > 0) report.pass(rule, [...details, ...skips].join('; '));
      } else if (skips.length > 0) report.skip(rule, skips.join('; '));
    }
  }
}
