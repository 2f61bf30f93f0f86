/**
 * tlsscan's checks on the TLS ports a scan found (DESIGN §14: `net.tls.*`): implicit-TLS ports,
 * and SMTP/IMAP/POP3 ports that offer STARTTLS. tlsscan's library entry does the scan; its rules
 * land in netscan's report prefixed `net.`.
 */
import { mapBounded } from '../../../lib/concurrency.ts';
import type { Deadline } from '../../engine-kit/src/deadline.ts';
import type { Progress } from '../../engine-kit/src/progress.ts';
import type { ReportBuilder } from '../../../lib/report.ts';
import type { VettedAddress } from '../../../lib/target-policy.ts';
import { scanTlsEndpoint, type RuleResult, type StartTls } from '../../engine-kit/src/tls/index.ts';
import type { ServiceIdentity } from './probe/service.ts';

/** `tls.x` → `net.tls.x`. */
export const netTlsRuleId = (tlsRuleId: string): string => `net.${tlsRuleId}`;

/** TLS endpoints checked at once (tlsscan opens up to 6 connections to each). */
const ENDPOINTS_AT_ONCE = 4;

export interface TlsPort {
  address: VettedAddress;
  port: number;
  identity: ServiceIdentity;
}

/** How tlsscan should reach TLS on this port, or null when the port has none. */
export function tlsAccess(identity: ServiceIdentity): { starttls: StartTls; http: boolean } | null {
  if (identity.tls) return { starttls: 'none', http: identity.service === 'http' };
  if ((identity.service === 'smtp' || identity.service === 'imap' || identity.service === 'pop3') && identity.offersTls) {
    return { starttls: identity.service, http: false };
  }
  return null;
}

function record(report: ReportBuilder, results: readonly RuleResult[]): void {
  for (const result of results) {
    const id = netTlsRuleId(result.rule_id);
    for (const finding of result.findings) report.fail(id, finding);
    if (result.errors.length > 0) report.error(id, result.errors.join('; '));
    if (result.status === 'pass') report.pass(id, result.detail);
    if (result.status === 'skipped') report.skip(id, result.detail);
  }
}

/** Runs tlsscan on every TLS port and records its rules; returns the endpoints checked. */
export async function checkTlsPorts(
  ports: readonly TlsPort[],
  options: { host?: string; report: ReportBuilder; deadline: Deadline; progress: Progress },
): Promise<string[]> {
  const endpoints = ports.flatMap((entry) => {
    const access = tlsAccess(entry.identity);
    return access ? [{ ...entry, ...access }] : [];
  });
  await mapBounded(
    endpoints,
    ENDPOINTS_AT_ONCE,
    async (entry) => {
      const result = await scanTlsEndpoint({
        host: options.host ?? entry.address.address,
        address: entry.address,
        port: entry.port,
        starttls: entry.starttls,
        http: entry.http,
        deadline: options.deadline,
        progress: options.progress,
      });
      record(options.report, result.rules);
      options.progress('tls port checked', { endpoint: result.endpoint });
    },
    { signal: options.deadline.signal },
  );
  return endpoints.map((e) => (e.address.family === 6 ? `[${e.address.address}]:${e.port}` : `${e.address.address}:${e.port}`));
}
