import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a scanner may connect to: a target's addresses (tlsscan, netscan, secretscan's
 * clone) and hosts named by DNS data (mailscan's BIMI and MTA-STS fetches, SMTP probes). Whoever
 * controls the target or the scanned domain chooses them, so without this a scan could be aimed at
 * our own network (SSRF). The tables are the policy; ipaddr.js does the range arithmetic. Shared by
 * every engine (docs/engine-contract.md).
 */

/** Never reachable, not even with allowPrivate: cloud metadata and other link-local services live here. */
const alwaysBlocked: [cidr: string, label: string][] = [
  ['169.254.0.0/16', 'link-local'],
  ['fe80::/10', 'link-local'],
  ['fd00:ec2::254/128', 'cloud metadata'],
];

/** Refused unless loopback is allowed (tests and `ALLOW_LOOPBACK_TARGETS=true npm start`; never in AWS). */
const loopbackRanges: [cidr: string, label: string][] = [
  ['127.0.0.0/8', 'loopback'],
  ['::1/128', 'loopback'],
];

/** Refused unless private networks are allowed (a deployment that scans its own network). */
const privateRanges: [cidr: string, label: string][] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved or broadcast'],
  ['::/128', 'unspecified'],
  ['fc00::/7', 'unique local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
  ['100::/64', 'discard'],
  ['2001:db8::/32', 'documentation'],
  ['64:ff9b:1::/48', 'local NAT64'],
];

/**
 * IPv6 forms through which a connection ends up at an IPv4 host, and where that address sits in
 * the 16 bytes: v4-mapped, v4-compatible (deprecated; `::` and `::1` excluded below), the NAT64
 * well-known prefix and 6to4. Such an address is judged by its IPv4 address too.
 */
const ipv4Carriers: [cidr: string, offset: number][] = [
  ['::ffff:0:0/96', 12],
  ['::/96', 12],
  ['64:ff9b::/96', 12],
  ['2002::/16', 2],
];

type Range = { network: [ipaddr.IPv4 | ipaddr.IPv6, number]; label: string };

function compile(ranges: [string, string][]): Range[] {
  return ranges.map(([cidr, label]) => ({ network: ipaddr.parseCIDR(cidr), label }));
}

/**
 * The tables parsed at the first check, not at import: a process that never connects to an
 * address from DNS data (most mail scans) does not pay for parsing them at start-up.
 */
let compiled: {
  always: Range[];
  loopbacks: Range[];
  privates: Range[];
  carriers: { network: [ipaddr.IPv6, number]; offset: number }[];
} | null = null;
function tables(): NonNullable<typeof compiled> {
  compiled ??= {
    always: compile(alwaysBlocked),
    loopbacks: compile(loopbackRanges),
    privates: compile(privateRanges),
    carriers: ipv4Carriers.map(([cidr, offset]) => ({ network: ipaddr.IPv6.parseCIDR(cidr), offset })),
  };
  return compiled;
}

function rangeOf(ranges: Range[], address: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  return ranges.find(({ network }) => network[0].kind() === address.kind() && address.match(network))?.label ?? null;
}

function embeddedIpv4(address: ipaddr.IPv6): string | null {
  const bytes = address.toByteArray();
  const carrier = tables().carriers.find(({ network }) => address.match(network));
  if (!carrier) return null;
  const v4 = bytes.slice(carrier.offset, carrier.offset + 4);
  // `::` and `::1` are the unspecified and loopback addresses, not v4-compatible ones.
  if (carrier.offset === 12 && bytes.slice(0, 12).every((b) => b === 0) && v4.slice(0, 3).every((b) => b === 0) && v4[3] <= 1) return null;
  return v4.join('.');
}

/** What a deployment lets a scanner connect to, beyond public addresses. */
export interface AddressPolicy {
  /** RFC 1918, CGNAT, ULA, documentation and other non-public ranges. */
  allowPrivate: boolean;
  /** 127.0.0.0/8 and ::1. */
  allowLoopback: boolean;
}

/**
 * Why `ip` must not be connected to under `policy`, or null when it may be. IPv6 forms that carry
 * an IPv4 address (v4-mapped, NAT64, 6to4) are judged by that IPv4 address too, so
 * `::ffff:127.0.0.1` is loopback. Link-local and metadata addresses are refused under any policy.
 */
export function addressProblem(ip: string, policy: AddressPolicy): string | null {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // node:net decides what an address is (ipaddr.js also reads forms such as `127.1` or octal).
  if (!isIPv4(bare) && !isIPv6(bare)) return 'not an IP address';
  const address = ipaddr.parse(bare);
  if (address instanceof ipaddr.IPv6) {
    const v4 = embeddedIpv4(address);
    if (v4) {
      const reason = addressProblem(v4, policy);
      if (reason) return `${reason} (embedded ${v4})`;
    }
  }
  const { always, loopbacks, privates } = tables();
  return (
    rangeOf(always, address) ??
    (policy.allowLoopback ? null : rangeOf(loopbacks, address)) ??
    (policy.allowPrivate ? null : rangeOf(privates, address))
  );
}

/**
 * mailscan's form: `allowPrivate` (MAILSCAN_ALLOW_PRIVATE=1, which its tests set for loopback
 * servers) admits private and loopback addresses alike.
 */
export function blockedAddressReason(ip: string, allowPrivate: boolean): string | null {
  return addressProblem(ip, { allowPrivate, allowLoopback: allowPrivate });
}
