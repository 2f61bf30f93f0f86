import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The 16 bytes of an IPv6 address (`::` compression, a trailing dotted quad, brackets and a zone
 * index accepted), or null when it is not one. The block-list nibble form needs the bytes.
 */
export function parseIpv6(ip: string): Uint8Array | null {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return null;
  return new Uint8Array(ipaddr.IPv6.parse(bare).toByteArray());
}
