/**
 * tlsscan's finding catalogue (DESIGN §12): ids and severities are fixed there; `tlsscan rules`
 * prints this and docs/findings.md is generated from it.
 */
import type { Rule, RuleMetadata } from '../../../../lib/report.ts';
import { TLS_RULE_METADATA } from './rule-metadata.ts';

export const TLS_RULE_IDS = [
  'tls.protocol.sslv3',
  'tls.protocol.tls10',
  'tls.protocol.tls11',
  'tls.protocol.no_modern',
  'tls.cipher.insecure',
  'tls.cipher.sweet32',
  'tls.cipher.no_forward_secrecy',
  'tls.dh.weak_group',
  'tls.cert.expired',
  'tls.cert.expires_soon',
  'tls.cert.not_yet_valid',
  'tls.cert.hostname_mismatch',
  'tls.cert.untrusted',
  'tls.cert.incomplete_chain',
  'tls.cert.weak_key',
  'tls.cert.weak_signature',
  'tls.renegotiation.insecure',
  'tls.compression.enabled',
  'tls.heartbleed',
  'tls.hsts.missing',
  'tls.starttls.unavailable',
] as const;

export type TlsRuleId = (typeof TLS_RULE_IDS)[number];

/** A rule as written below; its references, tags, CWE and confidence come from rule-metadata.ts. */
type TlsRule = Omit<Rule, keyof RuleMetadata> & { rule_id: TlsRuleId };

const RULES: readonly TlsRule[] = [
  {
    rule_id: 'tls.protocol.sslv3',
    severity: 'high',
    title: 'SSLv3 (or SSLv2) accepted',
    description: 'The server completes a ServerHello for SSLv3, or answers an SSLv2 CLIENT-HELLO; the evidence says which.',
    remediation: 'Disable SSLv2 and SSLv3 (POODLE, DROWN); serve TLS 1.2 and TLS 1.3 only.',
  },
  {
    rule_id: 'tls.protocol.tls10',
    severity: 'medium',
    title: 'TLS 1.0 accepted',
    description: 'The server answers a TLS 1.0 ClientHello with a TLS 1.0 ServerHello.',
    remediation: 'Disable TLS 1.0 (RFC 8996); serve TLS 1.2 and TLS 1.3.',
  },
  {
    rule_id: 'tls.protocol.tls11',
    severity: 'medium',
    title: 'TLS 1.1 accepted',
    description: 'The server answers a TLS 1.1 ClientHello with a TLS 1.1 ServerHello.',
    remediation: 'Disable TLS 1.1 (RFC 8996); serve TLS 1.2 and TLS 1.3.',
  },
  {
    rule_id: 'tls.protocol.no_modern',
    severity: 'high',
    title: 'Neither TLS 1.2 nor TLS 1.3 accepted',
    description: 'The server refuses both a TLS 1.2 and a TLS 1.3 ClientHello offering every suite tlsscan knows.',
    remediation: 'Enable TLS 1.2 and TLS 1.3.',
  },
  {
    rule_id: 'tls.cipher.insecure',
    severity: 'high',
    title: 'Insecure cipher suite accepted',
    description: 'The server accepts a NULL, anonymous, EXPORT, RC4 or single-DES cipher suite under some protocol version.',
    remediation: 'Remove NULL, anonymous (aNULL), EXPORT, RC4 and DES suites from the server configuration.',
  },
  {
    rule_id: 'tls.cipher.sweet32',
    severity: 'medium',
    title: '64-bit block cipher accepted (Sweet32)',
    description: 'The server accepts a 3DES or IDEA suite (CVE-2016-2183).',
    remediation: 'Remove 3DES and IDEA suites; prefer AES-GCM and ChaCha20-Poly1305.',
  },
  {
    rule_id: 'tls.cipher.no_forward_secrecy',
    severity: 'medium',
    title: 'Connections without forward secrecy',
    description: 'A TLS 1.2-or-older connection can be made with a suite that has no ephemeral (EC)DH key exchange.',
    remediation: 'Offer only ECDHE (or DHE) suites below TLS 1.3.',
  },
  {
    rule_id: 'tls.dh.weak_group',
    severity: 'medium',
    title: 'Weak Diffie-Hellman group',
    description: 'A DHE suite uses a finite-field group under 2048 bits (Logjam).',
    remediation: 'Use a 2048-bit or larger DH group (RFC 7919 ffdhe2048), or drop DHE for ECDHE.',
  },
  {
    rule_id: 'tls.cert.expired',
    severity: 'high',
    title: 'Certificate expired',
    description: 'The leaf or an intermediate the server sends is past its notAfter date.',
    remediation: 'Renew the certificate and install the current chain.',
  },
  {
    rule_id: 'tls.cert.expires_soon',
    severity: 'medium',
    title: 'Certificate expires within 30 days',
    description: 'The leaf certificate expires within 30 days.',
    remediation: 'Renew the certificate (automate renewal, e.g. ACME).',
  },
  {
    rule_id: 'tls.cert.not_yet_valid',
    severity: 'high',
    title: 'Certificate not yet valid',
    description: 'The leaf or a sent intermediate has a notBefore date in the future.',
    remediation: 'Check the issuing date and the server clock; install a currently valid certificate.',
  },
  {
    rule_id: 'tls.cert.hostname_mismatch',
    severity: 'high',
    title: 'Certificate does not match the host name',
    description: 'No subjectAltName (or, without SANs, the CN) matches the host, with RFC 6125 wildcard rules.',
    remediation: 'Issue a certificate whose subjectAltName lists the host name.',
  },
  {
    rule_id: 'tls.cert.untrusted',
    severity: 'high',
    title: 'Certificate chain not trusted',
    description: 'The chain the server sends does not verify to a trusted root (Mozilla roots plus extra_roots); self-signed included.',
    remediation: 'Use a certificate from a publicly trusted CA (or add the private root to extra_roots) and send its full chain.',
  },
  {
    rule_id: 'tls.cert.incomplete_chain',
    severity: 'medium',
    title: 'Intermediate certificate missing',
    description: 'The server does not send an intermediate needed to reach a trusted root.',
    remediation: 'Configure the server to send the intermediate certificates after the leaf.',
  },
  {
    rule_id: 'tls.cert.weak_key',
    severity: 'high',
    title: 'Weak certificate key',
    description: 'The leaf or a sent intermediate has an RSA key under 2048 bits or an EC key under 256 bits.',
    remediation: 'Reissue with RSA 2048+ or ECDSA P-256+.',
  },
  {
    rule_id: 'tls.cert.weak_signature',
    severity: 'high',
    title: 'Certificate signed with SHA-1 or MD5',
    description: 'A certificate other than a root is signed with SHA-1 or MD5.',
    remediation: 'Reissue the certificate with a SHA-256 (or stronger) signature.',
  },
  {
    rule_id: 'tls.renegotiation.insecure',
    severity: 'high',
    title: 'No secure renegotiation (RFC 5746)',
    description: 'A TLS 1.2-or-older ServerHello does not carry the renegotiation_info extension the client asked for.',
    remediation: 'Update the TLS library; enable RFC 5746 secure renegotiation (or disable renegotiation).',
  },
  {
    rule_id: 'tls.compression.enabled',
    severity: 'medium',
    title: 'TLS compression enabled (CRIME)',
    description: 'The server selects DEFLATE when the client offers it.',
    remediation: 'Disable TLS-level compression.',
  },
  {
    rule_id: 'tls.heartbleed',
    severity: 'critical',
    title: 'Heartbleed (CVE-2014-0160)',
    description: 'A heartbeat request claiming more payload than it carries is answered with server memory.',
    remediation: 'Update OpenSSL (1.0.1g or later) immediately, then replace keys and certificates and revoke the old ones.',
  },
  {
    rule_id: 'tls.hsts.missing',
    severity: 'medium',
    title: 'HSTS missing or short',
    description: 'The HTTPS answer has no Strict-Transport-Security header, or its max-age is under 180 days.',
    remediation: 'Send Strict-Transport-Security: max-age=31536000; includeSubDomains on every HTTPS response.',
  },
  {
    rule_id: 'tls.starttls.unavailable',
    severity: 'high',
    title: 'STARTTLS not offered',
    description: 'A mail port (SMTP, IMAP, POP3) does not offer STARTTLS, so mail to it travels in clear text.',
    remediation: 'Enable STARTTLS with a valid certificate on the mail server.',
  },
];

export const catalogue: readonly (Rule & { rule_id: TlsRuleId })[] = RULES.map((rule) => ({ ...rule, ...TLS_RULE_METADATA[rule.rule_id] }));
