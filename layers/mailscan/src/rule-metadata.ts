/**
 * mailscan's rule metadata (DESIGN §11 'Rule metadata'): references, tags, CWE and confidence of
 * each rule, by id; catalogue.ts joins them to the rules (and fails to load if a rule has none).
 * `high`: what DNS, a signature or a report says; `medium`: a third party's list or a heuristic
 * reading (selectors guessed, lookalikes, header anomalies).
 */
import type { RuleMetadata } from '../../../lib/report.ts';

const RFC = (n: number, section?: string) => `https://www.rfc-editor.org/rfc/rfc${n}${section ? `#section-${section}` : ''}`;
const ATTACK = (technique: string) => `https://attack.mitre.org/techniques/${technique.replace('.', '/')}/`;
const CWE = (n: number) => `https://cwe.mitre.org/data/definitions/${n}.html`;
const M3AAWG_SENDERS = 'https://www.m3aawg.org/sites/default/files/m3aawg_senders_bcp_ver3-2015-02.pdf';
const BIMI = 'https://datatracker.ietf.org/doc/draft-brand-indicators-for-message-identification/';

function meta(tags: string[], references: string[], confidence: RuleMetadata['confidence'], cwe?: number): RuleMetadata {
  return { tags, references, ...(cwe ? { cwe: `CWE-${cwe}` } : {}), confidence };
}

/** Spoofing the domain's mail: what a missing or broken SPF or DMARC allows. */
const SPOOFING = 290;

export const MAILSCAN_RULE_METADATA: Readonly<Record<string, RuleMetadata>> = {
  'mailscan.spf.missing': meta(['email', 'spf', 'spoofing'], [RFC(7208), CWE(SPOOFING)], 'high', SPOOFING),
  'mailscan.spf.permissive_all': meta(['email', 'spf', 'spoofing'], [RFC(7208, '5.1'), CWE(SPOOFING)], 'high', SPOOFING),
  'mailscan.spf.multiple_records': meta(['email', 'spf'], [RFC(7208, '4.5')], 'high', SPOOFING),
  'mailscan.spf.void_lookup_limit': meta(['email', 'spf'], [RFC(7208, '4.6.4')], 'high', SPOOFING),
  'mailscan.spf.lookup_limit': meta(['email', 'spf'], [RFC(7208, '4.6.4')], 'high', SPOOFING),
  'mailscan.dmarc.missing': meta(['email', 'dmarc', 'spoofing'], [RFC(7489), CWE(SPOOFING)], 'high', SPOOFING),
  'mailscan.dmarc.policy_none': meta(['email', 'dmarc', 'spoofing'], [RFC(7489, '6.3')], 'high', SPOOFING),
  'mailscan.dmarc.rua_misalignment': meta(['email', 'dmarc', 'rua'], [RFC(7489, '7.2'), RFC(7489, '3.1')], 'high'),
  // Selectors are guessed: a key under a selector the scan did not try is not seen.
  'mailscan.dkim.not_found': meta(['email', 'dkim'], [RFC(6376), RFC(6376, '3.6.2')], 'medium'),
  'mailscan.dkim.unreadable_key': meta(['email', 'dkim'], [RFC(6376, '3.6.1')], 'high'),
  'mailscan.dkim.weak_key': meta(['email', 'dkim', 'crypto'], [RFC(8301), CWE(326)], 'high', 326),
  'mailscan.dnsbl.listed': meta(['email', 'reputation'], [RFC(5782), M3AAWG_SENDERS], 'medium'),
  'mailscan.dnssec.unsigned': meta(['dns', 'dnssec'], [RFC(4033), CWE(345)], 'high', 345),
  'mailscan.bimi.vmc_invalid': meta(['email', 'bimi', 'certificate'], [BIMI, CWE(295)], 'high', 295),
  'mailscan.reputation.threatintel_blocked': meta(['email', 'reputation'], [M3AAWG_SENDERS], 'medium'),
  'mailscan.reputation.mx_score_low': meta(['email', 'reputation'], [M3AAWG_SENDERS], 'medium'),
  'mailscan.leak.breachdb_breach': meta(['email', 'leak'], [ATTACK('T1589.001'), ATTACK('T1589.002')], 'medium'),
  'mailscan.leak.code_search_hit': meta(['email', 'leak'], [ATTACK('T1593.003'), CWE(200)], 'medium', 200),
  'mailscan.leak.lookalike': meta(['email', 'leak', 'lookalike'], [ATTACK('T1583.001')], 'medium'),
  'mailscan.leak.commercial_feed': meta(['email', 'leak'], [ATTACK('T1597')], 'medium'),
  'mailscan.header.received_anomaly': meta(['email', 'header'], [RFC(5321, '4.4')], 'medium'),
  'mailscan.header.arc_anomaly': meta(['email', 'header', 'arc'], [RFC(8617)], 'medium'),
  'mailscan.header.dkim_body_mismatch': meta(['email', 'header', 'dkim'], [RFC(6376, '3.7'), CWE(345)], 'high', 345),
  'mailscan.header.arc_seal_broken': meta(['email', 'header', 'arc'], [RFC(8617, '5.1'), CWE(345)], 'high', 345),
  'mailscan.header.dkim_signature_invalid': meta(['email', 'header', 'dkim'], [RFC(6376, '6.1'), CWE(345)], 'high', 345),
  'mailscan.header.arc_signature_invalid': meta(['email', 'header', 'arc'], [RFC(8617, '5.2'), CWE(345)], 'high', 345),
  'mailscan.discover.catch_all': meta(['email', 'discover'], [ATTACK('T1589.002'), RFC(5321, '3.5.3')], 'medium'),
  'mailscan.discover.flagged_address': meta(['email', 'discover'], [ATTACK('T1589.002')], 'medium'),
  'adversary.email.catch_all_enables_enumeration': meta(['email', 'adversary'], [ATTACK('T1589.002')], 'medium'),
  'adversary.email.dnsbl_burned_reputation': meta(['email', 'adversary', 'reputation'], [ATTACK('T1598'), RFC(5782)], 'medium'),
  'adversary.email.lookalike_phishing_infrastructure': meta(
    ['email', 'adversary', 'lookalike'],
    [ATTACK('T1583.001'), ATTACK('T1566')],
    'medium',
  ),
};
