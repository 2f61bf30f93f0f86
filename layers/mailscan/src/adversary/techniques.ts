import { finding, type ReportFinding } from '../catalogue.ts';
import { reportFingerprint } from '../finding-fingerprint.ts';
import type { RecordedCheck } from '../reputation/context.ts';
import type { Technique } from './technique-names.ts';

/**
 * The adversary executor's side in the scanner (DESIGN §5, SPEC §2.6): each technique turns on the
 * surfaces it needs and reads the adversary.email.* findings off the base findings that support them.
 */
export { TECHNIQUE_SURFACES, TECHNIQUES, type Technique } from './technique-names.ts';

interface Derivation {
  base: string;
  rule: string;
  technique: Technique[];
  describe: (base: ReportFinding) => string;
}

const DERIVATIONS: Derivation[] = [
  {
    base: 'mailscan.discover.catch_all',
    rule: 'adversary.email.catch_all_enables_enumeration',
    technique: ['T1589.002'],
    describe: () =>
      'The MX accepts any recipient, so an attacker can send to guessed addresses unnoticed and no bounce tells real from fake.',
  },
  {
    base: 'mailscan.dnsbl.listed',
    rule: 'adversary.email.dnsbl_burned_reputation',
    technique: ['T1589.002', 'T1598'],
    describe: (base) =>
      `The domain's sending infrastructure is block-listed (${base.detail}); its own mail is filtered while an attacker's lookalike is not.`,
  },
  {
    base: 'mailscan.leak.lookalike',
    rule: 'adversary.email.lookalike_phishing_infrastructure',
    technique: ['T1598'],
    describe: (base) => `A lookalike domain is ready for phishing: ${base.detail}`,
  },
];

export interface LookalikeWithMx {
  lookalike: string;
  family: string;
  mx: string[];
  addresses: string[];
}

/**
 * The adversary findings the requested techniques support. Each names its technique and the base
 * finding (rule id and fingerprint); a registered lookalike that receives mail but has no
 * certificate has no base finding, so its base is null and the lookalike is the evidence.
 */
export function adversaryFindings(
  domain: string,
  techniques: readonly Technique[],
  base: readonly ReportFinding[],
  lookalikesWithMx: readonly LookalikeWithMx[],
): ReportFinding[] {
  const out: ReportFinding[] = [];
  for (const technique of techniques) {
    for (const derivation of DERIVATIONS.filter((item) => item.technique.includes(technique))) {
      for (const item of base.filter((candidate) => candidate.rule_id === derivation.base)) {
        out.push(
          finding(
            derivation.rule,
            derivation.rule === 'adversary.email.lookalike_phishing_infrastructure' ? 'high' : 'medium',
            derivation.describe(item),
            {
              technique,
              base_rule_id: item.rule_id,
              base_fingerprint: reportFingerprint(domain, item),
              ...pick(item.evidence),
            },
          ),
        );
      }
    }
    if (technique === 'T1598') {
      const withCertificate = new Set(
        base.filter((item) => item.rule_id === 'mailscan.leak.lookalike').map((item) => item.evidence.lookalike),
      );
      for (const lookalike of lookalikesWithMx.filter((item) => item.mx.length > 0 && !withCertificate.has(item.lookalike))) {
        out.push(
          finding(
            'adversary.email.lookalike_phishing_infrastructure',
            'high',
            `${lookalike.lookalike} (${lookalike.family}) looks like ${domain} and receives mail (MX ${lookalike.mx.join(', ')}): ready to send and answer phishing.`,
            {
              technique,
              base_rule_id: null,
              base_fingerprint: null,
              lookalike: lookalike.lookalike,
              family: lookalike.family,
              mx: lookalike.mx,
              addresses: lookalike.addresses,
            },
          ),
        );
      }
    }
  }
  return out;
}

/**
 * The requested techniques run on the base findings: their findings, and one check per technique
 * and rule it derives, recorded with what it read (the base rule's findings, the registered
 * lookalikes) and passing or failing by its own result. Each check reads its base rule, so a base
 * check that could not complete or did not run makes it so too (CheckRecorder). A rule no requested
 * technique derives is skipped, naming the technique that would.
 */
export function runTechniques(
  domain: string,
  techniques: readonly Technique[],
  base: readonly ReportFinding[],
  lookalikesWithMx: readonly LookalikeWithMx[],
): { findings: ReportFinding[]; checks: RecordedCheck[] } {
  const findings = adversaryFindings(domain, techniques, base, lookalikesWithMx);
  const checks: RecordedCheck[] = [];
  const count = (items: readonly unknown[], one: string, many = `${one}s`): string => `${items.length} ${items.length === 1 ? one : many}`;
  for (const technique of techniques) {
    for (const derivation of DERIVATIONS.filter((item) => item.technique.includes(technique))) {
      const read = base.filter((item) => item.rule_id === derivation.base);
      const derived = findings.filter((item) => item.rule_id === derivation.rule && item.evidence.technique === technique);
      let detail = `${technique} read ${count(read, `${derivation.base} finding`)}${read.length > 0 ? ` (${named(read)})` : ''}`;
      if (derivation.rule === 'adversary.email.lookalike_phishing_infrastructure') {
        const withMx = lookalikesWithMx.filter((item) => item.mx.length > 0);
        detail += ` and ${count(lookalikesWithMx, 'registered lookalike')} (${withMx.length} receiving mail${withMx.length > 0 ? `: ${withMx.map((item) => item.lookalike).join(', ')}` : ''})`;
      }
      detail += `: ${derived.length === 0 ? 'nothing to derive' : `${count(derived, 'finding')} derived`}`;
      checks.push({ rules: [derivation.rule], outcome: 'ran', detail, reads: [derivation.base] });
    }
  }
  for (const derivation of DERIVATIONS.filter((item) => !item.technique.some((technique) => techniques.includes(technique)))) {
    checks.push({ rules: [derivation.rule], outcome: 'skipped', detail: `derived by ${derivation.technique.join(' or ')}, not requested` });
  }
  return { findings, checks };
}

/** The base findings a technique read, by what they are about (at most ten named). */
function named(findings: readonly ReportFinding[]): string {
  const names = findings.map((item) => {
    const { lookalike, list, subject, mx } = item.evidence;
    if (typeof lookalike === 'string') return lookalike;
    if (typeof list === 'string') return typeof subject === 'string' ? `${subject} on ${list}` : list;
    return typeof mx === 'string' ? `MX ${mx}` : item.rule_id;
  });
  return names.length > 10 ? `${names.slice(0, 10).join(', ')} and ${names.length - 10} more` : names.join(', ');
}

/** The identifying part of the base evidence, so two adversary findings of one rule stay distinct. */
function pick(evidence: Record<string, unknown>): Record<string, unknown> {
  const keys = ['lookalike', 'family', 'mx', 'list', 'zone', 'subject', 'domain', 'probe_address'];
  return Object.fromEntries(keys.filter((key) => key in evidence).map((key) => [key, evidence[key]]));
}
