import * as z from 'zod';
import { finding } from '../catalogue.ts';
import type { ReputationContext, ReputationInput } from './context.ts';
import type { CheckResult } from './check-result.ts';
import { reputationDefaults } from './defaults.ts';
import { openVendor } from '../vendors/vendor-client.ts';
import type { VendorDefinition } from '../vendors/vendor.ts';

/**
 * Threat-intelligence verdict for the domain from a VirusTotal-style API:
 *   GET {endpoint}/api/v3/domains/<domain>   x-apikey: <key>
 * reading data.attributes.last_analysis_stats and data.attributes.reputation. Without a key the
 * service is never contacted.
 */
export const threatIntelVendor: VendorDefinition = {
  name: 'threatintel',
  key: 'required',
  keyHeaders: (key) => ({ 'x-apikey': key }),
  defaultEndpoint: reputationDefaults.threatIntel.endpoint,
  defaultTimeoutMs: reputationDefaults.threatIntel.timeoutMs,
  maxBytes: reputationDefaults.apiMaxBytes,
};

const domainReportSchema = z.object({
  data: z.object({
    attributes: z.object({
      last_analysis_stats: z.object({
        malicious: z.number().int().min(0),
        suspicious: z.number().int().min(0),
        harmless: z.number().int().min(0).optional(),
        undetected: z.number().int().min(0).optional(),
      }),
      reputation: z.number().optional(),
    }),
  }),
});

export interface ThreatIntelData {
  status: 'ok' | 'error' | 'skipped';
  reason?: string;
  verdict?: 'blocked' | 'not_blocked' | 'unknown_to_vendor';
  malicious?: number;
  suspicious?: number;
  harmless?: number;
  undetected?: number;
  reputation?: number | null;
  rule?: string;
}

const { maliciousAtLeast, reputationBelow } = reputationDefaults.threatIntel;
const rule = `blocked when at least ${maliciousAtLeast} engines say malicious or the reputation is below ${reputationBelow}`;

export async function checkThreatIntel(input: ReputationInput, ctx: ReputationContext): Promise<CheckResult<ThreatIntelData>> {
  const vendor = openVendor(threatIntelVendor, ctx.config.threatIntel, { fetch: ctx.fetch, surface: 'reputation', check: 'threat_intel' });
  if (!vendor.ok) {
    const { status, reason, errors } = vendor.unavailable;
    return { status, data: { status, reason }, findings: [], errors };
  }
  const domain = input.domain.toLowerCase().replace(/\.$/, '');
  const answer = await vendor.client.request({ path: `/api/v3/domains/${encodeURIComponent(domain)}` }, domainReportSchema);
  if (answer.kind === 'error') {
    return {
      status: 'error',
      data: { status: 'error', reason: answer.message },
      findings: [],
      errors: [vendor.client.error(`${domain}: ${answer.message}`)],
    };
  }
  if (answer.kind === 'not_found')
    return { status: 'ok', data: { status: 'ok', verdict: 'unknown_to_vendor', rule }, findings: [], errors: [] };

  const { last_analysis_stats: stats, reputation } = answer.body.data.attributes;
  const blocked = stats.malicious >= maliciousAtLeast || (reputation !== undefined && reputation < reputationBelow);
  const data: ThreatIntelData = {
    status: 'ok',
    verdict: blocked ? 'blocked' : 'not_blocked',
    ...stats,
    reputation: reputation ?? null,
    rule,
  };
  const findings = blocked
    ? [
        finding(
          'mailscan.reputation.threatintel_blocked',
          'high',
          `The threat-intelligence vendor rates ${domain} as low-reputation: ${stats.malicious} malicious, ${stats.suspicious} suspicious, reputation ${reputation ?? 'n/a'}.`,
          { domain, malicious: stats.malicious, suspicious: stats.suspicious, reputation: reputation ?? null, rule },
        ),
      ]
    : [];
  return { status: 'ok', data, findings, errors: [] };
}
