import { describe, expect, it } from 'vitest';
import { TLS_RULE_IDS, catalogue } from '../src/index.ts';

/** DESIGN §12's table, copied here by hand: the catalogue must say exactly this. */
const DESIGN_12: ReadonlyArray<readonly [string, string]> = [
  ['tls.protocol.sslv3', 'high'],
  ['tls.protocol.tls10', 'medium'],
  ['tls.protocol.tls11', 'medium'],
  ['tls.protocol.no_modern', 'high'],
  ['tls.cipher.insecure', 'high'],
  ['tls.cipher.sweet32', 'medium'],
  ['tls.cipher.no_forward_secrecy', 'medium'],
  ['tls.dh.weak_group', 'medium'],
  ['tls.cert.expired', 'high'],
  ['tls.cert.expires_soon', 'medium'],
  ['tls.cert.not_yet_valid', 'high'],
  ['tls.cert.hostname_mismatch', 'high'],
  ['tls.cert.untrusted', 'high'],
  ['tls.cert.incomplete_chain', 'medium'],
  ['tls.cert.weak_key', 'high'],
  ['tls.cert.weak_signature', 'high'],
  ['tls.renegotiation.insecure', 'high'],
  ['tls.compression.enabled', 'medium'],
  ['tls.heartbleed', 'critical'],
  ['tls.hsts.missing', 'medium'],
  ['tls.starttls.unavailable', 'high'],
];

describe('tlsscan catalogue', () => {
  it('has exactly the rule ids and severities of DESIGN §12, in its order', () => {
    expect(catalogue.map((rule) => [rule.rule_id, rule.severity])).toEqual(DESIGN_12);
    expect([...TLS_RULE_IDS]).toEqual(DESIGN_12.map(([id]) => id));
  });

  it('gives every rule a title, a description and a remediation', () => {
    for (const rule of catalogue) {
      expect(rule.title.length, rule.rule_id).toBeGreaterThan(5);
      expect(rule.description.length, rule.rule_id).toBeGreaterThan(20);
      expect(rule.remediation.length, rule.rule_id).toBeGreaterThan(10);
      expect(rule.computed_severity, rule.rule_id).toBeUndefined();
    }
  });
});
