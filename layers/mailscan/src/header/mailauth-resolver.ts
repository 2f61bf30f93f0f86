import type { Resolver } from '../../../../lib/dns/resolver.ts';

/** mailauth's resolver shape: dns.resolve's, TXT answers as arrays of character-strings. */
export type MailauthResolver = (name: string, rrtype: string) => Promise<string[][]>;

/**
 * Hands mailauth the scan's resolver port, so DKIM and ARC keys come through the same nameservers,
 * timeouts and cache as every other query (and from the test DNS server in tests). The error codes
 * are the ones mailauth maps: ENOTFOUND/ENODATA mean "no key" (permanent), anything else temperror.
 */
export function mailauthResolver(resolver: Resolver): MailauthResolver {
  return async (name, rrtype) => {
    if (rrtype !== 'TXT') throw Object.assign(new Error(`unsupported query type ${rrtype}`), { code: 'ENOTIMP' });
    const answer = await resolver.query(name, 'TXT');
    if (answer.status === 'found') return answer.records.map((record) => [record]);
    if (answer.status === 'absent')
      throw Object.assign(new Error(`${name}: ${answer.reason}`), { code: answer.reason === 'nxdomain' ? 'ENOTFOUND' : 'ENODATA' });
    throw Object.assign(new Error(`${name}: ${answer.message}`), { code: answer.reason === 'timeout' ? 'ETIMEOUT' : 'ESERVFAIL' });
  };
}
