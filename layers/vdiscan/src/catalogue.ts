/**
 * vdiscan's finding catalogue (DESIGN §21): ids and severities are fixed there; `vdiscan rules`
 * prints this and docs/findings.md is generated from it. tlsscan's rules on RDP's TLS layer are
 * tlsscan's catalogue prefixed `vdi.rdp.` (one source, as netscan's `net.tls.*`).
 */
import type { Rule, RuleMetadata } from '../../../lib/report.ts';
import { catalogue as tlsCatalogue } from '../../engine-kit/src/tls/catalogue.ts';

export const VDI_RULES = {
  nlaNotRequired: 'vdi.rdp.nla_not_required',
  standardSecurity: 'vdi.rdp.standard_security',
  weakEncryption: 'vdi.rdp.weak_encryption',
  ntlmDisclosure: 'vdi.rdp.ntlm_disclosure',
  vncNoAuth: 'vdi.vnc.no_auth',
  vncWeakAuthOnly: 'vdi.vnc.weak_auth_only',
  vncCleartext: 'vdi.vnc.cleartext',
  gatewayDetected: 'vdi.gateway.detected',
  gatewayVulnerable: 'vdi.gateway.vulnerable_version',
  horizonInfo: 'vdi.horizon.info_disclosure',
} as const;

export type VdiRuleId = (typeof VDI_RULES)[keyof typeof VDI_RULES];

export const RDP_RULE_IDS: readonly VdiRuleId[] = [
  VDI_RULES.nlaNotRequired,
  VDI_RULES.standardSecurity,
  VDI_RULES.weakEncryption,
  VDI_RULES.ntlmDisclosure,
];
export const VNC_RULE_IDS: readonly VdiRuleId[] = [VDI_RULES.vncNoAuth, VDI_RULES.vncWeakAuthOnly, VDI_RULES.vncCleartext];
export const GATEWAY_RULE_IDS: readonly VdiRuleId[] = [VDI_RULES.gatewayDetected, VDI_RULES.gatewayVulnerable, VDI_RULES.horizonInfo];

const CWE = (n: number) => `https://cwe.mitre.org/data/definitions/${n}.html`;
const RDPBCGR = 'https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-rdpbcgr/';
const NLA = 'https://learn.microsoft.com/en-us/troubleshoot/windows-server/remote/remote-desktop-services-nla';
const RFB = 'https://www.rfc-editor.org/rfc/rfc6143';
const CISA_RDP = 'https://www.cisa.gov/news-events/cybersecurity-advisories/aa20-073a';

const METADATA: Readonly<Record<VdiRuleId, RuleMetadata>> = {
  [VDI_RULES.nlaNotRequired]: { tags: ['rdp', 'authentication'], references: [NLA, RDPBCGR, CISA_RDP], cwe: 'CWE-287', confidence: 'high' },
  [VDI_RULES.standardSecurity]: { tags: ['rdp', 'encryption'], references: [RDPBCGR, CWE(300)], cwe: 'CWE-300', confidence: 'high' },
  [VDI_RULES.weakEncryption]: { tags: ['rdp', 'encryption'], references: [RDPBCGR, CWE(326)], cwe: 'CWE-326', confidence: 'high' },
  [VDI_RULES.ntlmDisclosure]: {
    tags: ['rdp', 'disclosure'],
    references: ['https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-nlmp/', CWE(200)],
    cwe: 'CWE-200',
    confidence: 'high',
  },
  [VDI_RULES.vncNoAuth]: { tags: ['vnc', 'authentication'], references: [RFB, CWE(306)], cwe: 'CWE-306', confidence: 'high' },
  [VDI_RULES.vncWeakAuthOnly]: { tags: ['vnc', 'authentication'], references: [RFB, CWE(326)], cwe: 'CWE-326', confidence: 'high' },
  [VDI_RULES.vncCleartext]: {
    tags: ['vnc', 'cleartext'],
    references: [RFB, 'https://www.berrange.com/~dan/vencrypt.txt', CWE(319)],
    cwe: 'CWE-319',
    confidence: 'high',
  },
  // A login page is recognised by its markers: a look-alike page is possible.
  [VDI_RULES.gatewayDetected]: {
    tags: ['gateway', 'inventory'],
    references: ['https://owasp.org/Top10/A05_2021-Security_Misconfiguration/'],
    confidence: 'medium',
  },
  // A version read off a page may carry a vendor hotfix the page does not show.
  [VDI_RULES.gatewayVulnerable]: {
    tags: ['gateway', 'vulnerability'],
    references: ['https://nvd.nist.gov/', 'https://owasp.org/Top10/A06_2021-Vulnerable_and_Outdated_Components/', CWE(1395)],
    cwe: 'CWE-1395',
    confidence: 'medium',
  },
  [VDI_RULES.horizonInfo]: {
    tags: ['gateway', 'disclosure'],
    references: ['https://docs.vmware.com/en/VMware-Horizon/index.html', CWE(200)],
    cwe: 'CWE-200',
    confidence: 'high',
  },
};

type OwnRule = Omit<Rule, keyof RuleMetadata> & { rule_id: VdiRuleId };

const OWN_RULE_TEXT: readonly OwnRule[] = [
  {
    rule_id: VDI_RULES.nlaNotRequired,
    severity: 'high',
    title: 'RDP does not require Network Level Authentication',
    description:
      'A negotiation request without CredSSP (standard RDP only, or TLS only) gets a negotiation response instead of HYBRID_REQUIRED_BY_SERVER: anyone reaching the port gets a session and a login screen before authenticating, which is where pre-authentication flaws (BlueKeep) and password guessing start.',
    remediation:
      'Require Network Level Authentication ("Allow connections only from computers running Remote Desktop with Network Level Authentication"; security layer SSL, UserAuthentication=1) and put RDP behind a VPN or an RD Gateway.',
  },
  {
    rule_id: VDI_RULES.standardSecurity,
    severity: 'high',
    title: 'RDP accepts standard RDP security',
    description:
      'The server selects standard RDP security (selectedProtocol 0) for a request that offered only standard RDP, or standard RDP and TLS: the session key exchange has no server authentication, so a machine in the middle can read and change the session.',
    remediation: 'Set the security layer to SSL (TLS) or require NLA, so that standard RDP security is refused.',
  },
  {
    rule_id: VDI_RULES.weakEncryption,
    severity: 'medium',
    title: 'Weak standard RDP encryption',
    description:
      'Under standard RDP security the MCS Connect Response selects 40- or 56-bit RC4, no encryption, or the LOW or CLIENT_COMPATIBLE encryption level.',
    remediation: 'Use TLS or NLA instead of standard RDP security; if it must stay, set the encryption level to High or FIPS.',
  },
  {
    rule_id: VDI_RULES.ntlmDisclosure,
    severity: 'low',
    title: 'RDP NTLM challenge discloses host names and OS build',
    description:
      'The CredSSP NTLM challenge (sent before any credential; none is sent) names the NetBIOS and DNS computer and domain names and the Windows build.',
    remediation: 'Expected of NTLM over CredSSP; limit who reaches the port (VPN, RD Gateway) so that the names and build are not public.',
  },
  {
    rule_id: VDI_RULES.vncNoAuth,
    severity: 'critical',
    title: 'VNC server without authentication',
    description:
      'The VNC server offers security type None (or a VeNCrypt subtype without authentication): anyone reaching the port gets the desktop.',
    remediation: 'Remove security type None; require VeNCrypt with X.509 and a password, or tunnel VNC through SSH or a VPN.',
  },
  {
    rule_id: VDI_RULES.vncWeakAuthOnly,
    severity: 'high',
    title: 'VNC offers only VNC authentication',
    description:
      'The only authenticating security type is VNC authentication (DES challenge-response, passwords cut to 8 characters), with no TLS or VeNCrypt type.',
    remediation: 'Offer VeNCrypt with TLS or X.509 (TigerVNC: SecurityTypes=X509Vnc,TLSVnc) and turn plain VncAuth off, or tunnel VNC.',
  },
  {
    rule_id: VDI_RULES.vncCleartext,
    severity: 'medium',
    title: 'VNC without a TLS security type',
    description:
      'No TLS-protected security type (TLS, or a VeNCrypt TLS/X.509 subtype) is offered: the session crosses the network in cleartext.',
    remediation: 'Offer only VeNCrypt TLS or X.509 subtypes, or tunnel VNC through SSH or a VPN.',
  },
  {
    rule_id: VDI_RULES.gatewayDetected,
    severity: 'info',
    title: 'Remote desktop gateway login exposed',
    description:
      'A Citrix Gateway, VMware Horizon, RD Web Access, RD Gateway or Apache Guacamole login answers on the port (evidence: product, version where the page gives it).',
    remediation: 'Keep the gateway patched, require multi-factor authentication, and expose it only where users need it.',
  },
  {
    rule_id: VDI_RULES.gatewayVulnerable,
    severity: 'high',
    computed_severity: true,
    title: 'Remote desktop gateway below a fixed version',
    description:
      'A fingerprinted gateway version is below the fixed version of a bulletin in the engine’s bulletin table (docs/vdiscan-bulletins.md); severity from the bulletin’s CVSS v3 base score.',
    remediation: 'Upgrade the gateway to the fixed version named in the evidence, or apply the vendor’s mitigation.',
  },
  {
    rule_id: VDI_RULES.horizonInfo,
    severity: 'medium',
    title: 'VMware Horizon info.jsp discloses the client address or version',
    description:
      'Horizon’s /portal/info.jsp answers without authentication with the requesting client’s IP address or the server’s version and build.',
    remediation: 'Block /portal/info.jsp at the load balancer or Unified Access Gateway for unauthenticated clients.',
  },
];

const OWN_RULES: readonly Rule[] = OWN_RULE_TEXT.map((rule) => ({ ...rule, ...METADATA[rule.rule_id] }));

/** `tls.x` → `vdi.rdp.tls.x`. */
export const rdpTlsRuleId = (tlsRuleId: string): string => `vdi.rdp.${tlsRuleId}`;

const TLS_RULES: readonly Rule[] = tlsCatalogue.map((rule) => ({
  ...rule,
  rule_id: rdpTlsRuleId(rule.rule_id),
  tags: ['rdp', ...rule.tags],
  description: `On the TLS layer of an RDP port (after an RDP negotiation that selects TLS or CredSSP): ${rule.description}`,
}));

export const RDP_TLS_RULE_IDS: readonly string[] = TLS_RULES.map((rule) => rule.rule_id);

export const catalogue: readonly Rule[] = [...OWN_RULES, ...TLS_RULES];
