/**
 * tlsscan's rule metadata (DESIGN §11 'Rule metadata'): references, tags, CWE and confidence of
 * each rule, by id; catalogue.ts joins them to the rules. Every rule is what a handshake showed,
 * so every confidence is `high`.
 */
import type { RuleMetadata } from '../../../../lib/report.ts';

const RFC = (n: number) => `https://www.rfc-editor.org/rfc/rfc${n}`;
const CWE = (n: number) => `https://cwe.mitre.org/data/definitions/${n}.html`;
const MOZILLA_TLS = 'https://wiki.mozilla.org/Security/Server_Side_TLS';

function meta(tags: string[], references: string[], cwe?: number): RuleMetadata {
  return { tags: ['tls', ...tags], references, ...(cwe ? { cwe: `CWE-${cwe}` } : {}), confidence: 'high' };
}

// Keyed by rule id as text (not TlsRuleId) so this leaf does not import the catalogue back; test/unit/manifests.test.ts checks every rule has its metadata.
export const TLS_RULE_METADATA: Readonly<Record<string, RuleMetadata>> = {
  'tls.protocol.sslv3': meta(['protocol'], [RFC(7568), RFC(6176), 'https://drownattack.com/', CWE(327)], 327),
  'tls.protocol.tls10': meta(['protocol'], [RFC(8996), CWE(327)], 327),
  'tls.protocol.tls11': meta(['protocol'], [RFC(8996), CWE(327)], 327),
  'tls.protocol.no_modern': meta(['protocol'], [RFC(8996), RFC(8446), RFC(9325)], 327),
  'tls.cipher.insecure': meta(['cipher'], [RFC(7465), RFC(9325), MOZILLA_TLS], 327),
  'tls.cipher.sweet32': meta(['cipher'], ['https://sweet32.info/', 'https://nvd.nist.gov/vuln/detail/CVE-2016-2183'], 327),
  'tls.cipher.no_forward_secrecy': meta(['cipher'], [RFC(9325), MOZILLA_TLS], 327),
  'tls.dh.weak_group': meta(['cipher'], ['https://weakdh.org/', RFC(7919)], 326),
  'tls.cert.expired': meta(['certificate'], [RFC(5280), CWE(298)], 298),
  'tls.cert.expires_soon': meta(['certificate'], [RFC(5280)]),
  'tls.cert.not_yet_valid': meta(['certificate'], [RFC(5280), CWE(298)], 298),
  'tls.cert.hostname_mismatch': meta(['certificate'], [RFC(9525), CWE(297)], 297),
  'tls.cert.untrusted': meta(['certificate'], [RFC(5280), CWE(295)], 295),
  'tls.cert.incomplete_chain': meta(['certificate'], [`${RFC(8446)}#section-4.4.2`, `${RFC(5246)}#section-7.4.2`], 295),
  'tls.cert.weak_key': meta(['certificate'], ['https://csrc.nist.gov/pubs/sp/800/131/a/r2/final', CWE(326)], 326),
  'tls.cert.weak_signature': meta(
    ['certificate'],
    ['https://cabforum.org/working-groups/server/baseline-requirements/', 'https://shattered.io/'],
    328,
  ),
  'tls.renegotiation.insecure': meta(['protocol'], [RFC(5746), 'https://nvd.nist.gov/vuln/detail/CVE-2009-3555']),
  'tls.compression.enabled': meta(['protocol'], ['https://nvd.nist.gov/vuln/detail/CVE-2012-4929', `${RFC(9325)}#section-3.3`]),
  'tls.heartbleed': meta(['implementation'], ['https://heartbleed.com/', 'https://nvd.nist.gov/vuln/detail/CVE-2014-0160'], 125),
  'tls.hsts.missing': meta(
    ['http'],
    [RFC(6797), 'https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Strict_Transport_Security_Cheat_Sheet.html'],
    319,
  ),
  'tls.starttls.unavailable': meta(['starttls'], [RFC(3207), RFC(8314), RFC(2595)], 319),
};
