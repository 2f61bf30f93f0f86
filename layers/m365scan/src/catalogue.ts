/**
 * m365scan's finding catalogue (DESIGN §19): ids and severities are fixed there; `m365scan rules`
 * prints this and docs/findings.md is generated from it. Each rule carries the metadata of
 * DESIGN §11 (references, tags, CWE, confidence) beside the kit's `Rule` fields.
 */
import type { Rule } from '../../../lib/report.ts';

export const M365_RULE_IDS = [
  'm365.tenant.detected',
  'm365.spf.no_eop_include',
  'm365.dkim.not_enabled',
  'm365.mta_sts.missing',
  'm365.mta_sts.mx_mismatch',
  'm365.dns.dangling_cname',
  'm365.seamless_sso.enabled',
  'm365.adfs.idp_initiated_signon',
  'm365.adfs.legacy_endpoint',
  'm365.adfs.signing_cert_expiring',
  'm365.exchange_onprem.exposed',
] as const;

export type M365RuleId = (typeof M365_RULE_IDS)[number];

/** The kit's rule plus DESIGN §11's metadata. */
export interface M365Rule extends Rule {
  rule_id: M365RuleId;
  references: readonly string[];
  tags: readonly string[];
  cwe?: string;
  confidence: 'high' | 'medium' | 'low';
}

const LEARN = (path: string): string => `https://learn.microsoft.com/en-us/${path}`;
const AADINTERNALS_OUTSIDER = 'https://aadinternals.com/post/just-looking/';

export const catalogue: readonly M365Rule[] = [
  {
    rule_id: 'm365.tenant.detected',
    severity: 'info',
    title: 'Microsoft 365 tenant detected',
    description:
      "Microsoft's unauthenticated endpoints (the OpenID configuration, the user realm) know the domain: the evidence holds the tenant id, region, namespace type (managed or federated), brand, initial onmicrosoft.com domain and federation host.",
    remediation:
      'Nothing to fix: this is what anyone can learn about the tenant from outside. Review it for what it discloses (brand, federation host).',
    references: [AADINTERNALS_OUTSIDER, LEARN('entra/identity-platform/v2-protocols-oidc')],
    tags: ['tenant', 'recon'],
    confidence: 'high',
  },
  {
    rule_id: 'm365.spf.no_eop_include',
    severity: 'medium',
    title: 'SPF does not include Exchange Online Protection',
    description:
      "The domain's MX points to Exchange Online Protection (mail.protection.outlook.com) but its SPF record does not include spf.protection.outlook.com, directly or through its includes.",
    remediation: 'Add `include:spf.protection.outlook.com` to the SPF record (before the `all` term).',
    references: [LEARN('defender-office-365/email-authentication-spf-configure'), 'https://www.rfc-editor.org/rfc/rfc7208'],
    tags: ['dns', 'spf', 'mail'],
    cwe: 'CWE-290',
    confidence: 'high',
  },
  {
    rule_id: 'm365.dkim.not_enabled',
    severity: 'medium',
    title: 'DKIM for Microsoft 365 not enabled',
    description:
      "The selector1/selector2 CNAMEs Microsoft 365's DKIM signing needs are missing, or their targets publish no DKIM key (signing was set up but not enabled).",
    remediation:
      'Publish selector1._domainkey and selector2._domainkey as the CNAMEs the Defender portal shows, then enable DKIM signing for the domain.',
    references: [LEARN('defender-office-365/email-authentication-dkim-configure'), 'https://www.rfc-editor.org/rfc/rfc6376'],
    tags: ['dns', 'dkim', 'mail'],
    cwe: 'CWE-290',
    confidence: 'high',
  },
  {
    rule_id: 'm365.mta_sts.missing',
    severity: 'low',
    title: 'MTA-STS missing',
    description: 'There is no `_mta-sts` TXT record, or no policy is served at https://mta-sts.<domain>/.well-known/mta-sts.txt.',
    remediation: 'Publish an MTA-STS policy (mode testing, then enforce) and its `_mta-sts` TXT record.',
    references: ['https://www.rfc-editor.org/rfc/rfc8461', LEARN('purview/enhancing-mail-flow-with-mta-sts')],
    tags: ['dns', 'mta_sts', 'mail'],
    cwe: 'CWE-319',
    confidence: 'high',
  },
  {
    rule_id: 'm365.mta_sts.mx_mismatch',
    severity: 'medium',
    title: "MTA-STS policy does not cover the domain's MX",
    description:
      "The MTA-STS policy's `mx:` patterns do not match every MX host of the domain: senders enforcing it refuse to deliver there.",
    remediation: 'List every MX host in the policy (for Exchange Online: `mx: *.mail.protection.outlook.com`) and raise its id.',
    references: ['https://www.rfc-editor.org/rfc/rfc8461#section-4.1'],
    tags: ['dns', 'mta_sts', 'mail'],
    cwe: 'CWE-1188',
    confidence: 'high',
  },
  {
    rule_id: 'm365.dns.dangling_cname',
    severity: 'high',
    title: 'Dangling Microsoft CNAME (subdomain takeover)',
    description:
      'autodiscover, lyncdiscover, sip, msoid, enterpriseregistration or enterpriseenrollment is a CNAME to a name that does not exist: whoever registers that name serves the subdomain.',
    remediation: 'Remove the CNAME, or point it at a name the organisation controls.',
    references: [LEARN('azure/security/fundamentals/subdomain-takeover'), 'https://github.com/EdOverflow/can-i-take-over-xyz'],
    tags: ['dns', 'takeover'],
    cwe: 'CWE-350',
    confidence: 'high',
  },
  {
    rule_id: 'm365.seamless_sso.enabled',
    severity: 'low',
    title: 'Seamless SSO (desktop SSO) enabled',
    description:
      "GetCredentialType for a fabricated user of the domain answers `EstsProperties.DesktopSsoEnabled: true`: the AZUREADSSOACC computer account's Kerberos key signs users in, and the endpoint can be password-sprayed without lockout logging.",
    remediation: "Disable Seamless SSO where devices are Entra-joined; otherwise roll the AZUREADSSOACC account's Kerberos key regularly.",
    references: [LEARN('entra/identity/hybrid/connect/how-to-connect-sso'), AADINTERNALS_OUTSIDER],
    tags: ['tenant', 'sso'],
    cwe: 'CWE-307',
    confidence: 'high',
  },
  {
    rule_id: 'm365.adfs.idp_initiated_signon',
    severity: 'medium',
    title: 'ADFS IdP-initiated sign-on page enabled',
    description:
      'The federation server serves /adfs/ls/idpinitiatedsignon.aspx: it lists relying parties and invites phishing and spraying.',
    remediation: 'Run `Set-AdfsProperties -EnableIdpInitiatedSignonPage $false` on the federation farm.',
    references: [LEARN('windows-server/identity/ad-fs/deployment/best-practices-securing-ad-fs')],
    tags: ['adfs', 'federation'],
    cwe: 'CWE-200',
    confidence: 'high',
  },
  {
    rule_id: 'm365.adfs.legacy_endpoint',
    severity: 'medium',
    title: 'ADFS WS-Trust usernamemixed endpoint exposed',
    description:
      'A WS-Trust `usernamemixed` endpoint of the federation server answers from outside: it takes a user name and password without MFA (a password-spray surface). No credential is sent.',
    remediation: 'Disable the WS-Trust 2005 and 1.3 usernamemixed endpoints on the proxy (or the farm), or enable extranet smart lockout.',
    references: [
      LEARN('windows-server/identity/ad-fs/deployment/best-practices-securing-ad-fs'),
      LEARN('windows-server/identity/ad-fs/operations/configure-ad-fs-extranet-smart-lockout-protection'),
    ],
    tags: ['adfs', 'federation'],
    cwe: 'CWE-307',
    confidence: 'medium',
  },
  {
    rule_id: 'm365.adfs.signing_cert_expiring',
    severity: 'medium',
    title: 'ADFS token-signing certificate expiring',
    description:
      "The token-signing certificate in the federation server's FederationMetadata.xml expires within 30 days (high when it has expired): sign-in to Microsoft 365 breaks when it does.",
    remediation: 'Roll the token-signing certificate (AutoCertificateRollover, or Update-MsolFederatedDomain after a manual roll).',
    references: [
      LEARN('windows-server/identity/ad-fs/operations/manage-ssl-protocols-in-ad-fs'),
      LEARN('entra/identity/hybrid/connect/how-to-connect-fed-o365-certs'),
    ],
    tags: ['adfs', 'federation', 'certificate'],
    cwe: 'CWE-298',
    confidence: 'high',
    computed_severity: true,
    severities: ['high', 'medium'],
  },
  {
    rule_id: 'm365.exchange_onprem.exposed',
    severity: 'medium',
    title: 'On-premises Exchange serving OWA',
    description:
      'autodiscover or the mail host is an on-premises Exchange server serving Outlook on the web; the evidence holds its build.',
    remediation:
      'Keep the server on the latest cumulative and security update, or retire it after the move to Exchange Online; publish OWA only behind a pre-authenticating proxy.',
    references: [
      LEARN('exchange/new-features/build-numbers-and-release-dates'),
      'https://www.cisa.gov/news-events/directives/ed-21-02-mitigate-microsoft-exchange-on-premises-product-vulnerabilities',
    ],
    tags: ['exchange', 'exposure'],
    cwe: 'CWE-1104',
    confidence: 'high',
  },
];
