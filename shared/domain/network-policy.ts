import { isIP } from 'node:net';

/** What a deployment lets tenants point scanners at (docs/hostile-input.md). */
export interface TargetPolicy {
  /** Private ranges (RFC 1918, CGNAT, IPv6 ULA): off by default, on for deployments that scan their own network. */
  allowPrivateNetworks: boolean;
  /**
   * Loopback (127.0.0.0/8, ::1, `localhost`): only `ALLOW_LOOPBACK_TARGETS=true npm start`, so the
   * engines can be tried against local servers (DESIGN §11). It does not exist in AWS.
   */
  allowLoopback?: boolean;
}

export const DEFAULT_TARGET_POLICY: TargetPolicy = { allowPrivateNetworks: false };

/** The widest network one target may cover (DESIGN §14): an IPv4 /24, an IPv6 /120 (256 addresses). */
export const MIN_PREFIX = { 4: 24, 6: 120 } as const;

interface Range {
  family: 4 | 6;
  start: bigint;
  bits: number;
  label: string;
  /** Refused even when private networks are allowed. */
  always: boolean;
}

function toBigInt(address: string): { family: 4 | 6; value: bigint } | null {
  const family = isIP(address);
  if (family === 4) return { family, value: address.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(Number(octet)), 0n) };
  if (family !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const value = toBigInt(v4[1])!.value;
    text = text.replace(v4[1], `${(value >> 16n).toString(16)}:${(value & 0xffffn).toString(16)}`);
  }
  const [head = '', tail] = text.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const parts =
    tail === undefined
      ? headParts
      : [...headParts, ...Array.from({ length: 8 - headParts.length - tailParts.length }, () => '0'), ...tailParts];
  return { family: 6, value: parts.reduce((sum, part) => (sum << 16n) + BigInt(parseInt(part, 16)), 0n) };
}

function range(cidr: string, label: string, always: boolean): Range {
  const [address, bits] = cidr.split('/');
  const parsed = toBigInt(address)!;
  return { family: parsed.family, start: parsed.value, bits: Number(bits), label, always };
}

/**
 * Addresses that lead into the deployment or nowhere useful (IANA special-purpose registries).
 * Parsed at the first check rather than when the module loads: every API function imports this
 * module, and parsing the ranges was a few milliseconds of each cold start (docs/cold-start.md).
 */
let ranges: Range[] | undefined;
const specialRanges = (): Range[] =>
  (ranges ??= [
    range('0.0.0.0/8', 'the "this network" block', true),
    range('127.0.0.0/8', 'loopback', true),
    range('169.254.0.0/16', 'link-local (cloud metadata lives here)', true),
    range('224.0.0.0/4', 'multicast', true),
    range('240.0.0.0/4', 'reserved', true),
    range('10.0.0.0/8', 'a private network', false),
    range('172.16.0.0/12', 'a private network', false),
    range('192.168.0.0/16', 'a private network', false),
    range('100.64.0.0/10', 'carrier-grade NAT space', false),
    range('198.18.0.0/15', 'benchmarking space', false),
    range('::/128', 'the unspecified address', true),
    range('::1/128', 'loopback', true),
    range('fe80::/10', 'link-local', true),
    range('ff00::/8', 'multicast', true),
    range('fd00:ec2::/32', 'cloud metadata', true),
    range('fc00::/7', 'a private network (ULA)', false),
  ]);

/** Embedded IPv4 addresses that reach the same hosts: IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d). */
let embedding: Range[] | undefined;
const embeddings = (): Range[] => (embedding ??= [range('::ffff:0:0/96', '', true), range('64:ff9b::/96', '', true)]);

function covers(outer: Range, family: 4 | 6, value: bigint, bits: number): boolean {
  const width = family === 4 ? 32 : 128;
  const shift = BigInt(width - Math.min(outer.bits, bits));
  return outer.family === family && outer.start >> shift === value >> shift;
}

/** Host names that always mean this machine or the cloud's metadata service. */
const INTERNAL_NAMES = /^(localhost|metadata|metadata\.google\.internal|instance-data(\.ec2\.internal)?)$|\.localhost$/;

/**
 * Why a network target is refused, or null. `address` is an IP literal, with `bits` for a CIDR
 * block: refused when it overlaps loopback, link-local, metadata, multicast or reserved space,
 * a private range unless the policy allows it, or when it is wider than MIN_PREFIX.
 */
export function addressProblem(address: string, bits: number | undefined, policy: TargetPolicy): string | null {
  const parsed = toBigInt(address);
  if (!parsed) return null;
  const prefix = bits ?? (parsed.family === 4 ? 32 : 128);
  if (prefix < MIN_PREFIX[parsed.family]) {
    return `must cover at most 256 addresses (a /${MIN_PREFIX[parsed.family]} or narrower); split a wider network into several targets`;
  }
  for (const mapped of embeddings()) {
    if (parsed.family === 6 && prefix >= 96 && covers(mapped, 6, parsed.value, prefix)) {
      const v4 = parsed.value & 0xffffffffn;
      return addressProblem([24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 0xffn)).join('.'), prefix - 96, policy);
    }
  }
  for (const candidate of specialRanges()) {
    if (!covers(candidate, parsed.family, parsed.value, prefix)) continue;
    if (candidate.label === 'loopback' && policy.allowLoopback) continue;
    if (candidate.always || !policy.allowPrivateNetworks) return `must not point inside the deployment: ${address} is ${candidate.label}`;
  }
  return null;
}

/** Why a host name is refused (this machine, the metadata service), or null. */
export function hostnameProblem(host: string, policy: TargetPolicy = DEFAULT_TARGET_POLICY): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (policy.allowLoopback && (name === 'localhost' || name.endsWith('.localhost'))) return null;
  return INTERNAL_NAMES.test(name) ? `must not point inside the deployment: ${host} is this machine or its metadata service` : null;
}

/** `host`, `host:port`, `a.b.c.d:port`, `[v6]:port` or a bare IPv6 address → the host part. */
function hostOfHostPort(target: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(target);
  if (bracketed) return bracketed[1];
  return isIP(target) === 6 ? target : target.replace(/:\d+$/, '');
}

/** Why a URL's host is refused, or null: IP literals by range, names by hostnameProblem. */
export function urlHostProblem(url: string, policy: TargetPolicy): string | null {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? addressProblem(host, undefined, policy) : hostnameProblem(host, policy);
}

/** How a scan type's target reaches the network, which decides how it is checked. */
export type TargetReach = 'none' | 'host' | 'url' | 'repository' | 'network';

/** Why a normalised target of this reach is refused by the policy, or null. */
export function reachProblem(reach: TargetReach, target: string, policy: TargetPolicy): string | null {
  switch (reach) {
    case 'none':
      return null;
    case 'host': {
      const host = hostOfHostPort(target);
      return isIP(host) ? addressProblem(host, undefined, policy) : hostnameProblem(host, policy);
    }
    case 'url':
      return urlHostProblem(target, policy);
    case 'repository': {
      const scp = /^[^@/]+@([^:]+):/.exec(target);
      if (scp) return hostnameProblem(scp[1], policy);
      const problem = urlHostProblem(target, policy);
      if (problem !== null || !target.startsWith('http:')) return problem;
      // Plain HTTP only to a local test server (ALLOW_LOOPBACK_TARGETS), never to the Internet.
      const host = new URL(target).hostname.replace(/^\[|\]$/g, '');
      const loopback =
        host === 'localhost' ||
        (isIP(host) !== 0 && (addressProblem(host, undefined, DEFAULT_TARGET_POLICY) ?? '').endsWith('is loopback'));
      return policy.allowLoopback && loopback ? null : 'repository URLs must use https';
    }
    case 'network': {
      const [address, bits] = target.split('/');
      return isIP(address)
        ? addressProblem(address, bits === undefined ? undefined : Number(bits), policy)
        : hostnameProblem(target, policy);
    }
  }
}
