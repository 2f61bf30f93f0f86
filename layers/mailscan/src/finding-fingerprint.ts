import { createHash } from 'node:crypto';

/**
 * Keys of lowercase letters and underscores (every key of mailscan's evidence): ordered by code
 * unit they are in localeCompare's order (test/scan/finding-fingerprint.test.ts), without the ICU
 * collator that a process's first localeCompare builds, 6–12 ms of every scan's CPU
 * (docs/mailscan-startup.md).
 */
const PLAIN_KEY = /^[a-z_]*$/;
const byCodeUnit = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);
const byLocale = ([a]: [string, unknown], [b]: [string, unknown]): number => a.localeCompare(b);

/** JSON with sorted keys (in localeCompare's order, as the stored fingerprints hashed them), so equal evidence always hashes alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    entries.sort(entries.every(([key]) => PLAIN_KEY.test(key)) ? byCodeUnit : byLocale);
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A finding's fingerprint within one report: domain, rule and evidence. The service, which knows
 * the tenant, maps it to the stored finding's fingerprint (docs/mailscan-discover-leak.md), so an
 * adversary finding's `base_fingerprint` names the stored base finding.
 */
export function reportFingerprint(domain: string, finding: { rule_id: string; evidence: Record<string, unknown> }): string {
  return createHash('sha256')
    .update([domain, finding.rule_id, canonicalJson(finding.evidence)].join('\u0000'))
    .digest('hex');
}
