import type { Confidence, Rule as KitRule } from '../../../lib/report.ts';
import type { Severity } from '../../../lib/severity.ts';
import { MAILSCAN_RULE_METADATA } from './rule-metadata.ts';

/**
 * The finding catalogue: every rule mailscan can emit, as data in one place. `mailscan rules`
 * prints it and docs/findings.md documents it. Rules from SPEC §2.4 keep their ids and severities;
 * `addition: true` marks rules this project added (see docs/findings.md).
 */
export type Surface = 'posture' | 'reputation' | 'discover' | 'leak' | 'rua' | 'header' | 'adversary';

export interface Rule {
  rule_id: string;
  surface: Surface;
  /** Every severity the rule can carry, most severe first. */
  severities: Severity[];
  title: string;
  fires_when: string;
  remediation: string;
  addition?: true;
  /** DESIGN §11 'Rule metadata', from rule-metadata.ts: what it is about, where it is described, its weakness, how sure. */
  tags: readonly string[];
  references: readonly string[];
  cwe?: string;
  confidence: Confidence;
}

/** A rule as written below; its tags, references, CWE and confidence come from rule-metadata.ts. */
type RuleText = Omit<Rule, 'tags' | 'references' | 'cwe' | 'confidence'>;

/** Surfaces this build runs; rules of the others stay in the catalogue (docs/findings.md says which). */
export const BUILT_SURFACES: readonly Surface[] = ['posture', 'reputation', 'discover', 'leak', 'rua', 'header', 'adversary'];

const RULES: readonly RuleText[] = [
  // Posture: additions users expect and SPEC's catalogue lacks.
  {
    rule_id: 'mailscan.spf.missing',
    surface: 'posture',
    severities: ['high'],
    addition: true,
    title: 'No SPF record',
    fires_when: 'The domain publishes no v=spf1 TXT record.',
    remediation: 'Publish a TXT record "v=spf1 ... -all" listing every sender of the domain.',
  },
  {
    rule_id: 'mailscan.spf.permissive_all',
    surface: 'posture',
    severities: ['high', 'medium'],
    addition: true,
    title: 'SPF ends in a permissive all',
    fires_when: 'The SPF record ends in +all (high) or ?all (medium), or has no all and no redirect (medium).',
    remediation: 'End the record with -all (or ~all while rolling out).',
  },
  {
    rule_id: 'mailscan.spf.multiple_records',
    surface: 'posture',
    severities: ['high'],
    addition: true,
    title: 'More than one SPF record',
    fires_when: 'Two or more v=spf1 records: RFC 7208 §4.5 makes this a permerror.',
    remediation: 'Merge the records into one.',
  },
  {
    rule_id: 'mailscan.spf.void_lookup_limit',
    surface: 'posture',
    severities: ['medium'],
    addition: true,
    title: 'SPF exceeds the void-lookup limit',
    fires_when: 'Evaluating the record causes more than 2 void lookups (RFC 7208 §4.6.4).',
    remediation: 'Remove mechanisms that point at names without records.',
  },
  {
    rule_id: 'mailscan.dmarc.missing',
    surface: 'posture',
    severities: ['high'],
    addition: true,
    title: 'No DMARC record',
    fires_when: 'Neither the domain nor its organizational domain publishes a v=DMARC1 record.',
    remediation: 'Publish "_dmarc.<domain> TXT v=DMARC1; p=none; rua=mailto:..." and move to quarantine/reject.',
  },
  {
    rule_id: 'mailscan.dmarc.policy_none',
    surface: 'posture',
    severities: ['medium'],
    addition: true,
    title: 'DMARC policy is none',
    fires_when: 'The applicable DMARC policy is p=none (monitoring only).',
    remediation: 'Move to p=quarantine, then p=reject, once reports show aligned mail.',
  },
  {
    rule_id: 'mailscan.dkim.not_found',
    surface: 'posture',
    severities: ['medium'],
    addition: true,
    title: 'No DKIM key found',
    fires_when: 'No probed selector publishes a DKIM key.',
    remediation: "Sign outgoing mail with DKIM and publish the selector; name a custom selector in the scan's options (DKIM selectors).",
  },
  {
    rule_id: 'mailscan.dkim.unreadable_key',
    surface: 'posture',
    severities: ['medium'],
    addition: true,
    title: 'Unreadable DKIM key',
    fires_when:
      'A selector publishes a key that cannot be used: p= is not valid base64, the key does not parse as its k= type (an Ed25519 key that is not 32 bytes), or an RSA modulus over 16384 bits, which verifiers refuse. It does not count as a DKIM key.',
    remediation:
      'Republish the selector with the public key exactly as the signer exported it (base64 of the DER key), or remove the record.',
  },
  // Reputation (SPEC §2.4).
  {
    rule_id: 'mailscan.dnsbl.listed',
    surface: 'reputation',
    severities: ['high'],
    title: 'Listed on a block-list',
    fires_when: 'The domain or an MX IP is on a public block-list.',
    remediation: 'Find the cause of the listing, fix it, and request delisting from the list operator.',
  },
  {
    rule_id: 'mailscan.spf.lookup_limit',
    surface: 'reputation',
    severities: ['high'],
    title: 'SPF needs more than 10 DNS lookups',
    fires_when: 'The SPF record needs more than 10 DNS lookups (RFC 7208 §4.6.4).',
    remediation: 'Flatten or remove includes until evaluation needs at most 10 lookups.',
  },
  {
    rule_id: 'mailscan.dkim.weak_key',
    surface: 'reputation',
    severities: ['high', 'medium'],
    title: 'Weak DKIM key',
    fires_when: 'RSA key under 1024 bits (high), under 2048 bits (medium), or a deprecated algorithm such as rsa-sha1 (medium).',
    remediation: 'Rotate to a 2048-bit RSA or an Ed25519 key.',
  },
  {
    rule_id: 'mailscan.dnssec.unsigned',
    surface: 'reputation',
    severities: ['low'],
    title: 'Zone is not DNSSEC-signed',
    fires_when: 'The zone has no DNSKEY and no DS, so DKIM, DMARC and MX data can be spoofed in transit.',
    remediation: 'Sign the zone and publish the DS record at the parent.',
  },
  {
    rule_id: 'mailscan.bimi.vmc_invalid',
    surface: 'reputation',
    severities: ['high'],
    title: 'BIMI VMC is invalid',
    fires_when: 'The BIMI VMC chain fails PKIX validation (subject mismatch, expired, wrong EKU OID, logo hash mismatch and similar).',
    remediation: 'Obtain a valid VMC for the domain from a BIMI-approved CA and serve the matching SVG.',
  },
  {
    rule_id: 'mailscan.reputation.threatintel_blocked',
    surface: 'reputation',
    severities: ['high'],
    title: 'Domain has a bad threat-intelligence verdict',
    fires_when: 'A threat-intelligence vendor classifies the domain as low-reputation.',
    remediation: 'Investigate the vendor verdict, remove malicious content, request a review.',
  },
  {
    rule_id: 'mailscan.reputation.mx_score_low',
    surface: 'reputation',
    severities: ['medium'],
    title: 'Low sender score for an MX IP',
    fires_when: 'A sender-score reputation service scores one or more MX IPs below 50.',
    remediation: 'Investigate the sending volume and complaints of the IP.',
  },
  // Leak (opt-in surface, later issue).
  {
    rule_id: 'mailscan.leak.breachdb_breach',
    surface: 'leak',
    severities: ['high'],
    title: 'Domain in a known breach',
    fires_when:
      "The breach database lists a breach of the domain's own site (no key needed) or, with a key, breached addresses of the domain; one finding per breach, with its date, data classes and a count of addresses (masked samples only).",
    remediation: 'Reset credentials of affected accounts and enforce MFA.',
  },
  {
    rule_id: 'mailscan.leak.code_search_hit',
    surface: 'leak',
    severities: ['medium'],
    title: 'Domain in code search near secrets',
    fires_when:
      'Code search finds a file mentioning the domain (in quotes) next to a credential word (password, passwd, pwd, secret, api_key, apikey, token, smtp, aws_secret_access_key, private_key, client_secret, auth_token, credentials); one finding per file (operator key required).',
    remediation: 'Remove the secrets from the repository history and rotate them.',
  },
  {
    rule_id: 'mailscan.leak.lookalike',
    surface: 'leak',
    severities: ['high'],
    title: 'Lookalike domain with a certificate',
    fires_when:
      "A lookalike of the domain (dnstwist's permutation families) has an issued certificate: in CT for a registered lookalike, or seen on the certificate stream during the listening window.",
    remediation: 'Investigate and take down the lookalike domain.',
  },
  {
    rule_id: 'mailscan.leak.commercial_feed',
    surface: 'leak',
    severities: ['high', 'medium'],
    title: 'Exposure in a commercial leak feed',
    fires_when:
      'DeHashed, Intelligence X or Snusbase report records of the domain: high when a record exposes a password or hash, medium otherwise; one finding per feed and source, never with the secret (operator keys required).',
    remediation: 'Reset exposed credentials.',
  },
  // RUA (opt-in surface, later issue).
  {
    rule_id: 'mailscan.dmarc.rua_misalignment',
    surface: 'rua',
    severities: ['high', 'medium'],
    title: 'DMARC alignment failures in aggregate reports',
    fires_when: 'Per-source-IP DMARC alignment failure summarised from aggregate reports.',
    remediation: 'Authorise legitimate senders in SPF/DKIM; block the others.',
  },
  // Header (opt-in surface, later issue).
  {
    rule_id: 'mailscan.header.received_anomaly',
    surface: 'header',
    severities: ['high', 'medium'],
    title: 'Anomalous Received chain',
    fires_when: 'Backwards Received timestamps, loopback HELO and similar.',
    remediation: 'Investigate the relays in the message path.',
  },
  {
    rule_id: 'mailscan.header.arc_anomaly',
    surface: 'header',
    severities: ['high', 'medium'],
    title: 'ARC chain anomaly',
    fires_when: 'Gap in the ARC chain, missing component, or final cv=fail.',
    remediation: 'Investigate the intermediaries that sealed the message.',
  },
  {
    rule_id: 'mailscan.header.dkim_body_mismatch',
    surface: 'header',
    severities: ['critical'],
    title: 'DKIM body hash mismatch',
    fires_when: 'The DKIM body hash does not recompute (body modified after signing).',
    remediation: 'Treat the message as tampered.',
  },
  {
    rule_id: 'mailscan.header.arc_seal_broken',
    surface: 'header',
    severities: ['high'],
    title: 'ARC seal broken',
    fires_when: 'The final ARC seal has cv=fail (upstream chain validation failed).',
    remediation: 'Treat the forwarded authentication results as untrusted.',
  },
  {
    rule_id: 'mailscan.header.dkim_signature_invalid',
    surface: 'header',
    severities: ['high'],
    addition: true,
    title: 'DKIM signature does not verify',
    fires_when:
      'A DKIM signature (RSA-SHA256, Ed25519-SHA256 or rsa-sha1) fails cryptographic verification with the published key while its body hash matches: a signed header changed after signing, or the signature is forged.',
    remediation: 'Treat the message as tampered or spoofed; if it is your own mail, check that no relay rewrites signed headers.',
  },
  {
    rule_id: 'mailscan.header.arc_signature_invalid',
    surface: 'header',
    severities: ['high'],
    addition: true,
    title: 'ARC signature does not verify',
    fires_when:
      'A structurally sound ARC chain has an ARC-Seal, or its newest ARC-Message-Signature, that fails cryptographic verification with the published key.',
    remediation: 'Do not trust the forwarded authentication results; find the intermediary that altered the message.',
  },
  // Discover (opt-in surface, later issue).
  {
    rule_id: 'mailscan.discover.catch_all',
    surface: 'discover',
    severities: ['low'],
    title: 'MX accepts catch-all mail',
    fires_when:
      "The domain's MX accepts RCPT for a random local part: every address looks valid (enables address enumeration and hides typos).",
    remediation: 'Reject mail for unknown recipients at RCPT time.',
  },
  {
    rule_id: 'mailscan.discover.flagged_address',
    surface: 'discover',
    severities: ['high', 'medium'],
    title: 'Discovered address is flagged',
    fires_when:
      'A found or MX-accepted address is flagged by the address-reputation service: high when blacklisted or seen in malicious activity, medium when only its credentials leaked or it is in a breach (operator key required).',
    remediation: 'Secure the account and investigate its exposure.',
  },
  // Adversary integration (SPEC §2.6).
  {
    rule_id: 'adversary.email.catch_all_enables_enumeration',
    surface: 'adversary',
    severities: ['medium'],
    title: 'Catch-all enables enumeration',
    fires_when:
      'Technique T1589.002: the catch-all MX (mailscan.discover.catch_all) lets an attacker enumerate and mail guessed addresses unnoticed.',
    remediation: 'Reject unknown recipients.',
  },
  {
    rule_id: 'adversary.email.dnsbl_burned_reputation',
    surface: 'adversary',
    severities: ['medium'],
    title: 'Burned sending reputation',
    fires_when:
      "Technique T1589.002 or T1598: the domain or an MX address is block-listed (mailscan.dnsbl.listed), so its own mail is filtered while a lookalike's is not.",
    remediation: 'Delist and fix the cause.',
  },
  {
    rule_id: 'adversary.email.lookalike_phishing_infrastructure',
    surface: 'adversary',
    severities: ['high'],
    title: 'Lookalike phishing infrastructure',
    fires_when:
      'Technique T1598: a lookalike has a certificate (mailscan.leak.lookalike) or is registered with an MX (no base finding then): ready for phishing.',
    remediation: 'Take down the lookalike domains.',
  },
];

export const catalogue: readonly Rule[] = RULES.map((rule) => {
  const metadata = MAILSCAN_RULE_METADATA[rule.rule_id];
  if (!metadata) throw new Error(`${rule.rule_id} has no metadata in layers/mailscan/src/rule-metadata.ts`);
  return { ...rule, ...metadata };
});

let kit: readonly KitRule[] | undefined;
/**
 * The catalogue in the kit's `Rule` shape (DESIGN §11), the one the manifest, `mailscan rules` and
 * the report's checks use: its most severe severity as the default (a finding picks one of
 * `severities`), its surface and origin (SPEC §2.4 or this project's addition) as tags.
 */
export function kitRules(): readonly KitRule[] {
  return (kit ??= catalogue.map((rule) => ({
    rule_id: rule.rule_id,
    severity: rule.severities[0] ?? 'info',
    title: rule.title,
    description: rule.fires_when,
    remediation: rule.remediation,
    ...(rule.severities.length > 1 ? { computed_severity: true, severities: rule.severities } : {}),
    tags: [`surface:${rule.surface}`, rule.addition ? 'origin:addition' : 'origin:spec', ...rule.tags],
    references: rule.references,
    ...(rule.cwe ? { cwe: rule.cwe } : {}),
    confidence: rule.confidence,
  })));
}

/** One finding in a report (DESIGN §6). */
export interface ReportFinding {
  rule_id: string;
  severity: Severity;
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  remediation: string;
  /** What makes two sightings in different scans the same finding, when evidence carries counts that change. */
  evidence_key?: string;
}

const byId = new Map(catalogue.map((rule) => [rule.rule_id, rule]));

/** Builds a finding from its catalogue rule; throws on an unknown rule or a severity it cannot carry. */
export function finding(
  ruleId: string,
  severity: Severity,
  detail: string,
  evidence: Record<string, unknown>,
  evidenceKey?: string,
): ReportFinding {
  const rule = byId.get(ruleId);
  if (!rule) throw new Error(`unknown rule ${ruleId}`);
  if (!rule.severities.includes(severity)) throw new Error(`rule ${ruleId} cannot be ${severity}`);
  return {
    rule_id: ruleId,
    severity,
    title: rule.title,
    detail,
    evidence,
    remediation: rule.remediation,
    ...(evidenceKey === undefined ? {} : { evidence_key: evidenceKey }),
  };
}
