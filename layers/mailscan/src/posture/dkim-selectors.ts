/**
 * Selectors probed when the operator gives none: generic names and the fixed selectors of common
 * sending providers. Providers that use per-customer random selectors (Amazon SES, Postmark's dated
 * ones) cannot be discovered this way; pass those with --dkim-selector.
 */
export const DEFAULT_DKIM_SELECTORS: readonly string[] = [
  // Generic
  'default',
  'dkim',
  'mail',
  'email',
  'smtp',
  'key1',
  'key2',
  's1',
  's2',
  'k1',
  'k2',
  'k3',
  'selector',
  'sig1',
  'dk',
  // Microsoft 365
  'selector1',
  'selector2',
  // Google Workspace
  'google',
  // Mailchimp / Mandrill
  'mte1',
  'mandrill',
  // SendGrid
  'smtpapi',
  'em',
  // Mailgun
  'mx',
  'krs',
  'pic',
  // Zoho
  'zoho',
  'zmail',
  // Fastmail
  'fm1',
  'fm2',
  'fm3',
  // Proton Mail
  'protonmail',
  'protonmail2',
  'protonmail3',
  // Zendesk
  'zendesk1',
  'zendesk2',
  // Others: HubSpot, Salesforce, Mailjet, Campaign Monitor, SparkPost, Yandex
  'hs1',
  'hs2',
  'sf1',
  'mailjet',
  'cm',
  'scph0920',
  'yandex',
];

/** The selectors to probe: the config list replaces the built-in one; command-line ones are added. */
export function selectorsToProbe(configured: readonly string[] | undefined, extra: readonly string[]): string[] {
  const all = [...(configured ?? DEFAULT_DKIM_SELECTORS), ...extra].map((selector) => selector.trim().toLowerCase());
  return [...new Set(all.filter((selector) => selector !== ''))];
}
