/**
 * netscan's finding catalogue (DESIGN §14): `netscan rules` prints it, docs/netscan.md documents
 * it. Every rule gets one check in every report.
 */
import type { Rule } from '../../engine-kit/src/report.ts';

export const NET_RULES = {
  portOpen: 'net.port.open',
  exposedDatabase: 'net.exposed.database',
  exposedRemoteAdmin: 'net.exposed.remote_admin',
  cleartext: 'net.cleartext.protocol',
  unauthenticated: 'net.unauthenticated.access',
  vulnerableVersion: 'vm.vulnerable_version',
} as const;

const OWN_RULES: readonly Rule[] = [
  {
    rule_id: NET_RULES.portOpen,
    severity: 'info',
    title: 'Open TCP port',
    description: 'A TCP port accepts connections; one finding per port, with the service, banner and product/version the probes learnt.',
    remediation: 'Close the port or restrict it to the networks that need it, if it is not meant to be reachable.',
  },
  {
    rule_id: NET_RULES.exposedDatabase,
    severity: 'high',
    title: 'Database or cache reachable',
    description: 'A MySQL, PostgreSQL, MongoDB, Redis, Elasticsearch or memcached service answers from the scanner’s network.',
    remediation: 'Bind the service to a private interface or firewall it to the application hosts that use it.',
  },
  {
    rule_id: NET_RULES.exposedRemoteAdmin,
    severity: 'medium',
    title: 'Remote administration service reachable',
    description: 'RDP, VNC or a Docker Engine API answers from the scanner’s network.',
    remediation: 'Put remote administration behind a VPN or bastion; never expose the Docker API without TLS client authentication.',
  },
  {
    rule_id: NET_RULES.cleartext,
    severity: 'medium',
    title: 'Cleartext protocol',
    description: 'Telnet, FTP without AUTH TLS, or POP3/IMAP/SMTP without STARTTLS: credentials and data cross the network unencrypted.',
    remediation: 'Replace telnet with SSH; enable TLS (AUTH TLS, STARTTLS/STLS) or the implicit-TLS port, and refuse logins before TLS.',
  },
  {
    rule_id: NET_RULES.unauthenticated,
    severity: 'critical',
    title: 'Service answers without credentials',
    description:
      '(vapt) Redis answers INFO, MongoDB lists its databases, Elasticsearch returns cluster health, memcached returns stats, or the Docker API returns /version, without credentials. Read-only probes; nothing is written and no password is tried.',
    remediation:
      'Turn on the service’s authentication (requirepass/ACLs, MongoDB authorization, Elasticsearch security, memcached SASL, Docker TLS client certificates) and restrict who can reach it.',
  },
  {
    rule_id: NET_RULES.vulnerableVersion,
    severity: 'high',
    computed_severity: true,
    title: 'Known-vulnerable version',
    description:
      '(vm) A detected product version has a known vulnerability in the configured OSV-compatible service (NETSCAN_OSV_URL); severity from the CVSS v3 base score bands.',
    remediation: 'Upgrade to a fixed version (evidence: fixed) or apply the vendor’s mitigation.',
  },
];

/**
 * tlsscan's rules on a TLS port (DESIGN §12), prefixed `net.`. Until tlsscan's library entry is on
 * main these checks are reported skipped with the reason; then this list comes from its catalogue.
 */
const TLS_RULES: readonly [string, Rule['severity'], string][] = [
  ['tls.protocol.sslv3', 'high', 'SSLv3 accepted'],
  ['tls.protocol.tls10', 'medium', 'TLS 1.0 accepted'],
  ['tls.protocol.tls11', 'medium', 'TLS 1.1 accepted'],
  ['tls.protocol.no_modern', 'high', 'Neither TLS 1.2 nor TLS 1.3 accepted'],
  ['tls.cipher.insecure', 'high', 'Insecure cipher suite accepted'],
  ['tls.cipher.sweet32', 'medium', '64-bit block cipher suite accepted'],
  ['tls.cipher.no_forward_secrecy', 'medium', 'Connection possible without forward secrecy'],
  ['tls.dh.weak_group', 'medium', 'Weak Diffie-Hellman group'],
  ['tls.cert.expired', 'high', 'Certificate expired'],
  ['tls.cert.expires_soon', 'medium', 'Certificate expires within 30 days'],
  ['tls.cert.not_yet_valid', 'high', 'Certificate not yet valid'],
  ['tls.cert.hostname_mismatch', 'high', 'Certificate does not match the host'],
  ['tls.cert.untrusted', 'high', 'Certificate chain not trusted'],
  ['tls.cert.incomplete_chain', 'medium', 'Intermediate certificate missing'],
  ['tls.cert.weak_key', 'high', 'Weak certificate key'],
  ['tls.cert.weak_signature', 'high', 'Weak certificate signature'],
  ['tls.renegotiation.insecure', 'high', 'Insecure renegotiation'],
  ['tls.compression.enabled', 'medium', 'TLS compression enabled'],
  ['tls.heartbleed', 'critical', 'Heartbleed'],
  ['tls.hsts.missing', 'medium', 'HSTS missing or short'],
  ['tls.starttls.unavailable', 'high', 'Mail port without STARTTLS'],
];

export const NET_TLS_RULE_IDS: readonly string[] = TLS_RULES.map(([id]) => `net.${id}`);

export const catalogue: readonly Rule[] = [
  ...OWN_RULES,
  ...TLS_RULES.map(([id, severity, title]) => ({
    rule_id: `net.${id}`,
    severity,
    title: `${title} (TLS port)`,
    description: `tlsscan's ${id} on a TLS port the scan found (DESIGN §12).`,
    remediation: `As tlsscan's ${id}.`,
  })),
];
