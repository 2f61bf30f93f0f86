import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../lib/canonical-json.ts';

export { canonicalJson };

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
