import { ReportBuilder, type Check, type Coverage, type ReportStatus } from '../../../../lib/report.ts';
import { catalogue, kitRules, type ReportFinding, type Surface } from '../catalogue.ts';
import type { RecordedCheck, SurfaceResult } from '../reputation/context.ts';
import { SCANNER_NAME, SCANNER_VERSION } from '../version.ts';

/** The surfaces whose checks ask DNS: a dead resolver makes every one of their checks an error. */
export const DNS_SURFACES: readonly Surface[] = ['posture', 'reputation', 'discover', 'leak', 'adversary'];

const rulesBySurface = new Map<Surface, string[]>();
for (const rule of catalogue)
  (rulesBySurface.get(rule.surface) ?? rulesBySurface.set(rule.surface, []).get(rule.surface)!).push(rule.rule_id);

/** The part of a rule id naming what it checks: `mailscan.spf.missing` → `spf`. */
const familyOf = (ruleId: string): string => ruleId.split('.')[1] ?? '';

/**
 * The report's `checks` (DESIGN §11, §15), recorded through the kit's `ReportBuilder` as each
 * surface hands in what it ran: a check that ran says what it read and what it examined (its
 * coverage), a skipped one why in words, one that could not complete what stopped it. A rule with
 * a finding is `fail`; an error beats a pass, so a check is `pass` only when nothing in its way failed.
 */
export class CheckRecorder {
  private readonly builder: ReportBuilder;

  constructor(domain: string, now: () => Date) {
    this.builder = new ReportBuilder({
      scanner: { name: SCANNER_NAME, version: SCANNER_VERSION },
      target: domain,
      catalogue: kitRules(),
      now,
    });
  }

  /** Each finding fails its rule's check. */
  found(findings: readonly ReportFinding[]): this {
    for (const finding of findings) {
      this.builder.fail(finding.rule_id, {
        detail: finding.detail,
        evidence: finding.evidence,
        fingerprint_key: finding.evidence_key ?? finding.rule_id,
        severity: finding.severity,
        title: finding.title,
      });
    }
    return this;
  }

  /**
   * Checks as the code that ran them recorded them. A check that reads other rules' checks (an
   * adversary technique) is an error when one of them could not complete, skipped when one did not run.
   */
  recorded(surface: Surface, checks: readonly RecordedCheck[]): this {
    for (const check of checks) {
      const spoiled = check.outcome === 'ran' ? this.spoiledBy(check.reads ?? []) : null;
      if (spoiled?.status === 'error') this.builder.error(check.rules, `${check.detail}; but ${spoiled.why}`);
      else if (spoiled?.status === 'skipped') this.builder.skip(check.rules, spoiled.why);
      else if (check.outcome === 'skipped') this.builder.skip(check.rules, check.detail);
      else if (check.outcome === 'error') this.builder.error(check.rules, check.detail);
      else {
        const coverage = mailCoverage(surface, check.selectors, check.lists);
        for (const rule of check.rules) this.builder.pass(rule, check.detail, coverage);
      }
    }
    return this;
  }

  /**
   * A surface's result: its findings and its recorded checks. A rule of the surface that none of
   * them decided got no result from the code that should have recorded it: an error, never a pass,
   * carrying the surface's own errors where it failed as a whole (a deadline, a fault; an error
   * names a check family, `spf` → `mailscan.spf.*`, and one that names no family of the surface
   * spoils every rule of it). `null`: it did not run, for `notRun`.
   */
  surface(surface: Surface, result: SurfaceResult<Record<string, unknown>> | null, notRun: string): this {
    const rules = rulesBySurface.get(surface) ?? [];
    if (result === null) return this.skip(surface, notRun);
    this.found(result.findings);
    const decided = new Set((result.checks ?? []).flatMap((check) => check.rules));
    this.recorded(surface, result.checks ?? []);
    const families = new Set(rules.map(familyOf));
    for (const rule of rules.filter((id) => !decided.has(id))) {
      if (result.status === 'skipped') {
        const reason = result.data.reason;
        this.builder.skip(rule, typeof reason === 'string' ? reason : `the ${surface} surface did not run`);
        continue;
      }
      const spoiled = result.errors.filter((error) => error.check === familyOf(rule) || !families.has(error.check));
      if (spoiled.length > 0) this.builder.error(rule, spoiled.map((error) => `${error.check}: ${error.message}`).join('; '));
      else if (result.status === 'error') this.builder.error(rule, `the ${surface} surface ended in an error`);
      else this.builder.error(rule, notReported(surface));
    }
    return this;
  }

  /** Every check of these surfaces could not complete, for `message` (a dead resolver, a domain that does not exist). */
  error(surfaces: readonly Surface[], message: string): this {
    for (const surface of surfaces) this.builder.error(rulesBySurface.get(surface) ?? [], message);
    return this;
  }

  /** A surface that did not run, and why in words. */
  skip(surface: Surface, why: string): this {
    this.builder.skip(rulesBySurface.get(surface) ?? [], why);
    return this;
  }

  /**
   * The adversary techniques (no lookups of their own): their findings, and each technique's
   * checks as it recorded what it read, after the surfaces it reads, so a base check that could
   * not complete spoils it. A rule no check decided is an error.
   */
  adversary(techniques: readonly string[], findings: readonly ReportFinding[], checks: readonly RecordedCheck[] = []): this {
    if (techniques.length === 0) return this.skip('adversary', 'no adversary technique requested');
    this.found(findings.filter((finding) => finding.rule_id.startsWith('adversary.')));
    this.recorded('adversary', checks);
    const decided = new Set(checks.flatMap((check) => check.rules));
    for (const rule of rulesBySurface.get('adversary') ?? []) if (!decided.has(rule)) this.builder.error(rule, notReported('adversary'));
    return this;
  }

  /** The first read rule whose check could not complete, else the first that did not run, and why in words. */
  private spoiledBy(reads: readonly string[]): { status: 'error' | 'skipped'; why: string } | null {
    for (const status of ['error', 'skipped'] as const) {
      const rule = reads.find((id) => this.builder.checkStatus(id) === status);
      if (rule === undefined) continue;
      // The builder keeps a check's words to itself until the report is finished: read them off a draft.
      const detail = this.builder.finish().checks.find((check) => check.id === rule)?.detail ?? '';
      return { status, why: `${rule}, which it reads, ${status === 'error' ? 'could not complete' : 'did not run'}: ${detail}` };
    }
    return null;
  }

  finish(): { checks: Check[]; status: ReportStatus } {
    const { checks, status } = this.builder.finish();
    return { checks, status };
  }
}

/** A rule of a surface that ran and that no check of it decided: a bug in that surface, never a pass. */
function notReported(surface: Surface): string {
  return `the ${surface} surface ran but no check of it reported on this rule`;
}

function mailCoverage(surface: Surface, selectors: readonly string[] = [], lists: readonly string[] = []): Coverage {
  return { kind: 'mail', surfaces: [surface], selectors: [...selectors], lists: [...lists] };
}
