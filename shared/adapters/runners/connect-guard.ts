import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressProblem, DEFAULT_TARGET_POLICY, type TargetPolicy } from '../../domain/network-policy.ts';

/** A connection refused because the address it resolved to lies inside the deployment. */
export class InternalAddressError extends Error {
  readonly code = 'EINTERNALADDRESS';
}

/**
 * The connect-time half of the target policy (docs/hostile-input.md): a `lookup` for
 * `net.connect`, `tls.connect` and `http(s).request` that resolves the host and refuses the
 * connection when any address it would use is refused by `policy`. The API already refused IP
 * literals and internal names; this catches names that resolve inside (DNS rebinding included,
 * since the check runs on the addresses the socket then uses). Runners that reach a tenant's
 * target (dast, vapt, ssl, ...) pass it as `lookup`; mailscan's safe-fetch does the same for HTTP.
 */
export function guardedLookup(
  policy: TargetPolicy = DEFAULT_TARGET_POLICY,
  resolve: typeof systemLookup = systemLookup,
  { allowLoopback = false }: { allowLoopback?: boolean } = {},
): LookupFunction {
  // Loopback only where the local runtime admits it (ALLOW_LOOPBACK_TARGETS): never in AWS.
  const problemOf = (address: string) => (allowLoopback && isLoopback(address) ? null : addressProblem(address, undefined, policy));
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list: LookupAddress[] = addresses;
      const refused = list.map((entry) => problemOf(entry.address)).find((problem) => problem !== null);
      if (refused || list.length === 0) return callback(new InternalAddressError(`${hostname}: ${refused ?? 'no address'}`), '', 0);
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped address). */
export function isLoopback(address: string): boolean {
  return /^(::ffff:)?127\./i.test(address) || address === '::1';
}
