import { createHash } from 'node:crypto';

/** JSON with sorted keys, so equal evidence always hashes alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
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
