/**
 * What makes two sightings of a finding, in two scans of one domain, the same problem (DESIGN §15:
 * the tracker keeps one issue per tenant, target, rule and subject). Each rule names its instance:
 * `key` is the finding's evidence key (its fingerprint within the target: stable across scans, no
 * counts, addresses, certificates or return codes that change while the problem stays), `subject`
 * the instance in words. A rule with one instance per domain keeps the subject it always had
 * (`brand.test (spf)`, `_dmarc.brand.test`, a DKIM selector's name), so its issues keep matching;
 * a rule with several instances (a lookalike, a listing, an address, a breach) names each one, so
 * each is its own issue. docs/mailscan.md has the table.
 */
export interface FindingIdentity {
  key: string;
  subject: string;
}

type Evidence = Record<string, unknown>;
type Identify = (domain: string, evidence: Evidence) => FindingIdentity;

/** `name=value` pairs (an undefined part left out), a value quoted (JSON) when it holds a space, `=` or a quote, so two keys never read alike. */
export function keyOf(parts: Record<string, unknown>): string {
  return Object.entries(parts)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => {
      const written = text(value);
      return `${name}=${/^[^\s="]+$/.test(written) || written === '' ? written : JSON.stringify(written)}`;
    })
    .join(' ');
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** One instance per domain: the subject it always had, keyed by the domain (or the one record) it is about. */
const perDomain =
  (family: string, key: (domain: string, evidence: Evidence) => Record<string, unknown> = (domain) => ({ domain })): Identify =>
  (domain, evidence) => ({ key: keyOf(key(domain, evidence)), subject: `${domain} (${family})` });

const dmarcRecord: Identify = (domain) => ({ key: keyOf({ domain }), subject: `_dmarc.${domain}` });

/** One per DKIM selector: its record's name. */
const selector: Identify = (domain, evidence) => ({
  key: keyOf({ selector: evidence.selector }),
  subject: `${text(evidence.selector)}._domainkey.${domain}`,
});

/** The message a header finding is about (its Message-ID), then where in it. */
function inMessage(evidence: Evidence, where: Record<string, unknown>, words: string): FindingIdentity {
  const message = text(evidence.message_id);
  return {
    key: keyOf({ message, ...where }),
    subject: `${words} in ${message === '' ? 'a message without Message-ID' : `message ${message}`}`,
  };
}

const signature = (evidence: Evidence): FindingIdentity =>
  inMessage(
    evidence,
    { d: evidence.domain, s: evidence.selector },
    `DKIM signature ${text(evidence.selector)}._domainkey.${text(evidence.domain)}`,
  );

const lookalike: Identify = (domain, evidence) => ({
  key: keyOf({ lookalike: evidence.lookalike }),
  subject: `${text(evidence.lookalike)} (lookalike of ${domain})`,
});

const listing: Identify = (_domain, evidence) => ({
  key: keyOf({ zone: evidence.zone, subject: evidence.subject }),
  subject: `${text(evidence.subject)} on ${text(evidence.zone)}`,
});

const catchAll: Identify = (domain, evidence) => ({ key: keyOf({ mx: evidence.mx }), subject: `${domain} (discover)` });

/** An adversary finding: its base finding's instance and its technique (a lookalike with an MX and no certificate is the lookalike's). */
const adversary =
  (base: Identify): Identify =>
  (domain, evidence) => {
    const of = base(domain, evidence);
    const technique = text(evidence.technique);
    const subject = of.subject.endsWith(')') ? `${of.subject.slice(0, -1)}, ${technique})` : `${of.subject} (${technique})`;
    return { key: `${keyOf({ technique })} ${of.key}`, subject };
  };

export const IDENTITIES: Readonly<Record<string, Identify>> = {
  'mailscan.spf.missing': perDomain('spf'),
  'mailscan.spf.permissive_all': perDomain('spf'),
  'mailscan.spf.multiple_records': perDomain('spf'),
  'mailscan.spf.void_lookup_limit': perDomain('spf'),
  'mailscan.spf.lookup_limit': perDomain('spf'),
  'mailscan.dmarc.missing': dmarcRecord,
  'mailscan.dmarc.policy_none': dmarcRecord,
  'mailscan.dkim.not_found': perDomain('dkim'),
  'mailscan.dkim.unreadable_key': selector,
  'mailscan.dkim.weak_key': selector,
  'mailscan.dnsbl.listed': listing,
  'mailscan.dnssec.unsigned': perDomain('dnssec', (_domain, evidence) => ({ zone: evidence.zone })),
  'mailscan.bimi.vmc_invalid': perDomain('bimi', (_domain, evidence) => ({ record: evidence.record_name })),
  'mailscan.reputation.threatintel_blocked': perDomain('reputation'),
  'mailscan.reputation.mx_score_low': (domain, evidence) => ({
    key: keyOf({ ip: evidence.ip }),
    subject: `${text(evidence.ip)} (MX address of ${domain})`,
  }),
  'mailscan.leak.breachdb_breach': (_domain, evidence) => ({
    key: keyOf({ breach: evidence.breach }),
    subject: `${text(evidence.breach)} (breach)`,
  }),
  'mailscan.leak.code_search_hit': (_domain, evidence) => ({
    key: keyOf({ repository: evidence.repository, path: evidence.path }),
    subject: `${text(evidence.repository)}/${text(evidence.path)}`,
  }),
  'mailscan.leak.lookalike': lookalike,
  'mailscan.leak.commercial_feed': (_domain, evidence) => ({
    key: keyOf({ feed: evidence.feed, source: evidence.source }),
    subject: `${text(evidence.source)} in ${text(evidence.feed)}`,
  }),
  // The key the rule always had.
  'mailscan.dmarc.rua_misalignment': (domain, evidence) => ({
    key: keyOf({ source_ip: evidence.source_ip }),
    subject: `${text(evidence.source_ip)} (sending as ${domain})`,
  }),
  'mailscan.header.received_anomaly': (_domain, evidence) =>
    inMessage(evidence, { kind: evidence.kind, hop: evidence.hop }, `Received hop ${text(evidence.hop)} (${text(evidence.kind)})`),
  'mailscan.header.arc_anomaly': (_domain, evidence) =>
    inMessage(
      evidence,
      { kind: evidence.kind, i: evidence.i, component: evidence.component, instance: evidence.instance },
      `ARC ${text(evidence.kind)}${evidence.i === null || evidence.i === undefined ? '' : ` at i=${text(evidence.i)}`}${evidence.component ? ` (${text(evidence.component)})` : ''}`,
    ),
  'mailscan.header.dkim_body_mismatch': (_domain, evidence) => signature(evidence),
  'mailscan.header.dkim_signature_invalid': (_domain, evidence) => signature(evidence),
  'mailscan.header.arc_seal_broken': (_domain, evidence) => inMessage(evidence, { i: evidence.i }, `ARC seal i=${text(evidence.i)}`),
  'mailscan.header.arc_signature_invalid': (_domain, evidence) =>
    inMessage(
      evidence,
      { component: evidence.component, i: evidence.i },
      `ARC ${evidence.component === 'AS' ? 'seal' : 'message signature'} i=${text(evidence.i)}`,
    ),
  // The key the rule always had: the probe address is random each scan.
  'mailscan.discover.catch_all': catchAll,
  'mailscan.discover.flagged_address': (_domain, evidence) => ({
    key: keyOf({ address: evidence.address }),
    subject: text(evidence.address),
  }),
  'adversary.email.catch_all_enables_enumeration': adversary(catchAll),
  'adversary.email.dnsbl_burned_reputation': adversary(listing),
  'adversary.email.lookalike_phishing_infrastructure': adversary(lookalike),
};

/** A finding's identity by its rule; a rule without one (none today) keeps the coarse subject and its whole evidence. */
export function identityOf(domain: string, finding: { rule_id: string; evidence: Evidence }, wholeEvidence: () => string): FindingIdentity {
  const identify = IDENTITIES[finding.rule_id];
  if (identify) return identify(domain, finding.evidence);
  return { key: wholeEvidence(), subject: `${domain} (${finding.rule_id.split('.')[1] ?? ''})` };
}
