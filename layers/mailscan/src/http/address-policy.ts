import { BlockList, isIPv4 } from 'node:net';
import { embeddedIpv4, formatIpv6, parseIpv6 } from './ip-address.ts';

/**
 * Which addresses a fetch to a host named by DNS data may connect to. Hosts in BIMI records are
 * chosen by whoever controls the scanned domain, so without this a scan could be aimed at our
 * own network (SSRF).
 */

/** Never reachable, not even with allowPrivate: cloud metadata and other link-local services live here. */
const alwaysBlocked: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fd00:ec2::254', 128, 'ipv6', 'cloud metadata'],
];

/** Refused unless allowPrivate (MAILSCAN_ALLOW_PRIVATE=1, which tests set for loopback servers). */
const privateRanges: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved or broadcast'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fc00::', 7, 'ipv6', 'unique local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
  ['100::', 64, 'ipv6', 'discard'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['64:ff9b:1::', 48, 'ipv6', 'local NAT64'],
];

type Range = { list: BlockList; family: 'ipv4' | 'ipv6'; label: string };

function compile(ranges: [string, number, 'ipv4' | 'ipv6', string][]): Range[] {
  return ranges.map(([network, prefix, family, label]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return { list, family, label };
  });
}

const always = compile(alwaysBlocked);
const privates = compile(privateRanges);

function rangeOf(ranges: Range[], ip: string, family: 'ipv4' | 'ipv6'): string | null {
  return ranges.find((range) => range.family === family && range.list.check(ip, family))?.label ?? null;
}

/**
 * Why `ip` must not be connected to, or null when it may be. IPv6 forms that carry an IPv4 address
 * (v4-mapped, NAT64, 6to4) are judged by that IPv4 address too, so `::ffff:127.0.0.1` is loopback.
 */
export function blockedAddressReason(ip: string, allowPrivate: boolean): string | null {
  if (isIPv4(ip)) return rangeOf(always, ip, 'ipv4') ?? (allowPrivate ? null : rangeOf(privates, ip, 'ipv4'));
  const bytes = parseIpv6(ip);
  if (!bytes) return 'not an IP address';
  const v4 = embeddedIpv4(bytes);
  if (v4) {
    const reason = blockedAddressReason(v4, allowPrivate);
    if (reason) return `${reason} (embedded ${v4})`;
  }
  const canonical = formatIpv6(bytes);
  return rangeOf(always, canonical, 'ipv6') ?? (allowPrivate ? null : rangeOf(privates, canonical, 'ipv6'));
}
