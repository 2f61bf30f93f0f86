import type { ReputationInput } from './context.ts';
import type { CheckResult } from './check-result.ts';

/** MX host name suffixes of hosted mail and filtering services. Reported only. */
export const mxProviders: readonly { suffix: string; provider: string }[] = [
  { suffix: 'google.com', provider: 'Google Workspace' },
  { suffix: 'googlemail.com', provider: 'Google Workspace' },
  { suffix: 'mail.protection.outlook.com', provider: 'Microsoft 365' },
  { suffix: 'olc.protection.outlook.com', provider: 'Microsoft Outlook.com' },
  { suffix: 'pphosted.com', provider: 'Proofpoint' },
  { suffix: 'ppe-hosted.com', provider: 'Proofpoint Essentials' },
  { suffix: 'mimecast.com', provider: 'Mimecast' },
  { suffix: 'mimecast.co.za', provider: 'Mimecast' },
  { suffix: 'mimecast-offshore.com', provider: 'Mimecast' },
  { suffix: 'zoho.com', provider: 'Zoho Mail' },
  { suffix: 'zoho.eu', provider: 'Zoho Mail' },
  { suffix: 'zoho.in', provider: 'Zoho Mail' },
  { suffix: 'zohomail.com', provider: 'Zoho Mail' },
  { suffix: 'messagingengine.com', provider: 'Fastmail' },
  { suffix: 'fastmail.com', provider: 'Fastmail' },
  { suffix: 'awsapps.com', provider: 'Amazon WorkMail' },
  { suffix: 'yahoodns.net', provider: 'Yahoo' },
  { suffix: 'mail.icloud.com', provider: 'iCloud Mail' },
  { suffix: 'barracudanetworks.com', provider: 'Barracuda Email Protection' },
  { suffix: 'iphmx.com', provider: 'Cisco Secure Email (IronPort)' },
  { suffix: 'protonmail.ch', provider: 'Proton Mail' },
  { suffix: 'messagelabs.com', provider: 'Symantec Email Security.cloud' },
  { suffix: 'trendmicro.com', provider: 'Trend Micro Email Security' },
  { suffix: 'trendmicro.eu', provider: 'Trend Micro Email Security' },
  { suffix: 'hornetsecurity.com', provider: 'Hornetsecurity' },
  { suffix: 'emailsrvr.com', provider: 'Rackspace Email' },
  { suffix: 'secureserver.net', provider: 'GoDaddy' },
  { suffix: 'yandex.net', provider: 'Yandex 360' },
  { suffix: 'mailgun.org', provider: 'Mailgun' },
  { suffix: 'sendgrid.net', provider: 'SendGrid' },
];

/** Amazon's inbound endpoints share amazonaws.com with every EC2 host, so they need the full shape. */
const mxPatterns: readonly { pattern: RegExp; provider: string }[] = [
  { pattern: /^inbound-smtp\.[a-z0-9-]+\.amazonaws\.com$/, provider: 'Amazon SES / WorkMail' },
];

/** The longest matching suffix wins, so a specific entry beats a generic one. */
export function providerOf(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  const patterned = mxPatterns.find((entry) => entry.pattern.test(name));
  if (patterned) return patterned.provider;
  let best: { suffix: string; provider: string } | null = null;
  for (const entry of mxProviders) {
    const matches = name === entry.suffix || name.endsWith(`.${entry.suffix}`);
    if (matches && (best === null || entry.suffix.length > best.suffix.length)) best = entry;
  }
  return best?.provider ?? null;
}

export function checkMxProvider(
  input: ReputationInput,
): CheckResult<{ hosts: { host: string; provider: string | null }[]; providers: string[] }> {
  const hosts = input.mx.filter((mx) => mx.host !== '' && mx.host !== '.').map((mx) => ({ host: mx.host, provider: providerOf(mx.host) }));
  const providers = [...new Set(hosts.map((host) => host.provider).filter((provider): provider is string => provider !== null))];
  return { status: 'ok', data: { hosts, providers }, findings: [], errors: [] };
}
