import { isIPv4 } from 'node:net';
import * as z from 'zod';
import { finding, type ReportFinding } from '../catalogue.ts';
import type { CheckError, ReputationContext, ReputationInput } from './context.ts';
import type { CheckResult } from './check-result.ts';
import { reputationDefaults } from './defaults.ts';
import { openVendor } from '../vendors/vendor-client.ts';
import type { VendorDefinition } from '../vendors/vendor.ts';

/**
 * Sender score of each MX IPv4. The API shape is ours (docs/mailscan-reputation.md):
 *   GET {endpoint}/v1/score?ip=<ipv4>   x-api-key: <key>
 *   200 {"ip": "<ipv4>", "score": 0-100 | null}   404: the service has no data for the IP
 * so a vendor is plugged in with a thin adapter. Without a key the service is never contacted.
 */
export const senderScoreVendor: VendorDefinition = {
  name: 'senderscore',
  key: 'required',
  keyHeaders: (key) => ({ 'x-api-key': key }),
  defaultEndpoint: reputationDefaults.senderScore.endpoint,
  defaultTimeoutMs: reputationDefaults.senderScore.timeoutMs,
  maxBytes: reputationDefaults.apiMaxBytes,
};

const scoreSchema = z.object({ ip: z.string(), score: z.number().min(0).max(100).nullable() });

export interface SenderScoreData {
  status: 'ok' | 'error' | 'skipped';
  reason?: string;
  threshold?: number;
  results?: { ip: string; hosts: string[]; status: 'scored' | 'no_data' | 'error'; score?: number | null; error?: string }[];
}

export async function checkSenderScore(input: ReputationInput, ctx: ReputationContext): Promise<CheckResult<SenderScoreData>> {
  const vendor = openVendor(senderScoreVendor, ctx.config.senderScore, { fetch: ctx.fetch, surface: 'reputation', check: 'sender_score' });
  if (!vendor.ok) {
    const { status, reason, errors } = vendor.unavailable;
    return { status, data: { status, reason }, findings: [], errors };
  }
  const { client } = vendor;
  const threshold = reputationDefaults.senderScore.lowBelow;
  const hostsByIp = new Map<string, string[]>();
  for (const mx of input.mx)
    for (const ip of mx.ipv4.filter((address) => isIPv4(address))) hostsByIp.set(ip, [...(hostsByIp.get(ip) ?? []), mx.host]);

  const results = await Promise.all(
    [...hostsByIp].map(async ([ip, hosts]) => {
      const answer = await client.request({ path: `/v1/score?ip=${encodeURIComponent(ip)}` }, scoreSchema);
      if (answer.kind === 'not_found') return { ip, hosts, status: 'no_data' as const };
      if (answer.kind === 'error') return { ip, hosts, status: 'error' as const, error: answer.message };
      return { ip, hosts, status: 'scored' as const, score: answer.body.score };
    }),
  );

  const findings: ReportFinding[] = [];
  const errors: CheckError[] = [];
  for (const result of results) {
    if (result.status === 'error') errors.push(client.error(`${result.ip}: ${result.error}`));
    if (result.status === 'scored' && typeof result.score === 'number' && result.score < threshold) {
      findings.push(
        finding(
          'mailscan.reputation.mx_score_low',
          'medium',
          `MX address ${result.ip} (${result.hosts.join(', ')}) has a sender score of ${result.score}, below ${threshold}.`,
          {
            ip: result.ip,
            hosts: result.hosts,
            score: result.score,
            threshold,
          },
        ),
      );
    }
  }
  const status = errors.length > 0 ? 'error' : 'ok';
  return { status, data: { status, threshold, results }, findings, errors };
}
