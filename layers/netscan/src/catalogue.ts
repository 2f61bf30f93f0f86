/**
 * netscan's finding catalogue (DESIGN §14): `netscan rules` prints it, docs/netscan.md documents
 * it. Every rule gets one check in every report.
 */
import type { Rule, RuleMetadata } from '../../../lib/report.ts';
import { catalogue as tlsCatalogue } from '../../engine-kit/src/tls/catalogue.ts';

export const NET_RULES = {
  portOpen: 'net.port.open',
  exposedDatabase: 'net.exposed.database',
  exposedRemoteAdmin: 'net.exposed.remote_admin',
  cleartext: 'net.cleartext.protocol',
  unauthenticated: 'net.unauthenticated.access',
  vulnerableVersion: 'vm.vulnerable_version',
} as const;

const CWE = (n: number) => `https://cwe.mitre.org/data/definitions/${n}.html`;
const MISCONFIGURATION = 'https://owasp.org/Top10/A05_2021-Security_Misconfiguration/';

/** netscan's own rules' references, tags, CWE and confidence (DESIGN §11 'Rule metadata'). */
const OWN_METADATA: Readonly<Record<(typeof NET_RULES)[keyof typeof NET_RULES], RuleMetadata>> = {
  [NET_RULES.portOpen]: {
    tags: ['network', 'inventory'],
    references: ['https://nmap.org/book/man-port-scanning-basics.html'],
    confidence: 'high',
  },
  // Exposure is a judgement of where the scanner stands: the service may be meant for that network.
  [NET_RULES.exposedDatabase]: {
    tags: ['network', 'exposure', 'database'],
    references: [MISCONFIGURATION, CWE(668)],
    cwe: 'CWE-668',
    confidence: 'medium',
  },
  [NET_RULES.exposedRemoteAdmin]: {
    tags: ['network', 'exposure', 'remote-admin'],
    references: [MISCONFIGURATION, CWE(668)],
    cwe: 'CWE-668',
    confidence: 'medium',
  },
  [NET_RULES.cleartext]: {
    tags: ['network', 'cleartext'],
    references: ['https://www.rfc-editor.org/rfc/rfc8314', CWE(319)],
    cwe: 'CWE-319',
    confidence: 'high',
  },
  [NET_RULES.unauthenticated]: {
    tags: ['network', 'authentication', 'vapt'],
    references: ['https://owasp.org/Top10/A07_2021-Identification_and_Authentication_Failures/', CWE(306)],
    cwe: 'CWE-306',
    confidence: 'high',
  },
  // A version read off a banner may carry a distribution's backported fix.
  [NET_RULES.vulnerableVersion]: {
    tags: ['network', 'vulnerability', 'vm'],
    references: ['https://osv.dev/', 'https://owasp.org/Top10/A06_2021-Vulnerable_and_Outdated_Components/', CWE(1395)],
    cwe: 'CWE-1395',
    confidence: 'medium',
  },
};

type OwnRule = Omit<Rule, keyof RuleMetadata> & { rule_id: keyof typeof OWN_METADATA };

const OWN_RULE_TEXT: readonly OwnRule[] = [
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
      '(vm) A version a service announces has a known vulnerability: an upstream product by its CPE in an NVD CVE API 2.0 service (NETSCAN_NVD_URL; version ranges re-checked), a Debian package named by the banner in an OSV-compatible service (NETSCAN_OSV_URL); severity from the CVSS v3 base score bands.',
    remediation: 'Upgrade to a fixed version (evidence: fixed) or apply the vendor’s mitigation.',
  },
];

const OWN_RULES: readonly Rule[] = OWN_RULE_TEXT.map((rule) => ({ ...rule, ...OWN_METADATA[rule.rule_id] }));

/** tlsscan's rules on a TLS port (DESIGN §12), prefixed `net.`: tlsscan's catalogue is the one source. */
const TLS_RULES: readonly Rule[] = tlsCatalogue.map((rule) => ({
  ...rule,
  rule_id: `net.${rule.rule_id}`,
  tags: ['network', ...rule.tags],
  description: `On a TLS port the scan found (implicit TLS, or STARTTLS on SMTP/IMAP/POP3): ${rule.description}`,
}));

export const NET_TLS_RULE_IDS: readonly string[] = TLS_RULES.map((rule) => rule.rule_id);

export const catalogue: readonly Rule[] = [...OWN_RULES, ...TLS_RULES];
