/**
 * The tlsscan engine as the kit's CLI frame runs it: the target is `host[:port]`, resolved once
 * under the target policy, and the first vetted address is scanned.
 */
import type { EngineDefinition } from '../../engine-kit/src/cli.ts';
import { resolveTarget } from '../../../lib/target-policy.ts';
import { catalogue } from '../../engine-kit/src/tls/catalogue.ts';
import { recordRuleResults } from '../../engine-kit/src/tls/rule-results.ts';
import { scanTlsEndpoint } from '../../engine-kit/src/tls/scan-endpoint.ts';
import { TlsScope } from './scope.ts';
import { formatTlsTarget, parseTlsTarget } from '../../engine-kit/src/tls/target.ts';
import { TLSSCAN_VERSION } from './version.ts';

export const tlsscan: EngineDefinition<TlsScope> = {
  name: 'tlsscan',
  version: TLSSCAN_VERSION,
  envPrefix: 'TLSSCAN',
  targetHelp: 'host[:port] (default port 443; [IPv6]:port), e.g. mail.example.com:25',
  catalogue: () => catalogue,
  scopeSchema: () => TlsScope,
  parseTarget: (raw) => {
    const parsed = parseTlsTarget(raw);
    return parsed.ok ? { ok: true, target: formatTlsTarget(parsed.target) } : parsed;
  },
  scan: async ({ target, scope, deadline, policy, report, progress, now }) => {
    const parsed = parseTlsTarget(target);
    if (!parsed.ok) throw new Error(parsed.message);
    const { host, port } = parsed.target;
    const [address] = await resolveTarget(host, policy);
    progress('tls.target', { host, port, address: address.address });
    // The endpoint is the name and the address it was reached at: an issue seen under either is covered.
    report.covered({ kind: 'network', scanned: [{ protocol: 'tcp', hosts: [...new Set([host, address.address])], ports: String(port) }] });
    const result = await scanTlsEndpoint({
      host,
      address,
      port,
      sni: scope.sni,
      starttls: scope.starttls,
      http: scope.http,
      extraRoots: scope.extra_roots ? [scope.extra_roots] : [],
      deadline,
      progress,
      now,
    });
    recordRuleResults(report, result.rules);
  },
};
