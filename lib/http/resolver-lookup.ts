import type { Resolver } from '../dns/resolver.ts';
import { FetchError, type HostAddress, type HostLookup } from './safe-fetch.ts';

/**
 * Resolves fetch hosts through the scan's Resolver, so `--nameserver` and the test DNS server
 * govern HTTP hosts too, and a DNS timeout stays distinguishable from a host that does not exist.
 */
export function lookupViaResolver(resolver: Resolver): HostLookup {
  return async (hostname) => {
    const [a, aaaa] = await Promise.all([resolver.query(hostname, 'A'), resolver.query(hostname, 'AAAA')]);
    const addresses: HostAddress[] = [
      ...(a.status === 'found' ? a.records.map((address) => ({ address, family: 4 as const })) : []),
      ...(aaaa.status === 'found' ? aaaa.records.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length > 0) return addresses;
    if (a.status === 'unknown' || aaaa.status === 'unknown') throw new FetchError('dns_failed', `${hostname}: DNS answer unknown`);
    throw new FetchError('host_not_found', `${hostname} has no A or AAAA record`);
  };
}
