import { isIP } from 'node:net';
import {
  addressProblem as registryProblem,
  internalName,
  judgeAddress,
  refusedInBlock,
  type AddressPolicy,
} from '../../lib/address-policy.ts';

/**
 * What a deployment lets tenants point scanners and webhooks at (docs/hostile-input.md): the one
 * address policy of lib/address-policy.ts (`allowPrivate`: ALLOW_PRIVATE_TARGETS; `allowLoopback`:
 * only `ALLOW_LOOPBACK_TARGETS=true npm start`, so the engines can be tried against local servers,
 * DESIGN §11; it does not exist in AWS). This module adds what a target's form needs: blocks, names,
 * URLs and repositories.
 */
export type TargetPolicy = AddressPolicy;

export const DEFAULT_TARGET_POLICY: TargetPolicy = { allowPrivate: false };

/** The widest network one target may cover (DESIGN §14): an IPv4 /24, an IPv6 /120 (256 addresses). */
export const MIN_PREFIX = { 4: 24, 6: 120 } as const;

const inside = (address: string, problem: string): string => `must not point inside the deployment: ${address} is ${problem}`;

/**
 * Why a network target is refused, or null. `address` is an IP literal, with `bits` for a CIDR
 * block: refused when any address of it is refused by the policy (lib/address-policy.ts), or when
 * it is wider than MIN_PREFIX.
 */
export function addressProblem(address: string, bits: number | undefined, policy: TargetPolicy): string | null {
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  if (bits === undefined) {
    const problem = registryProblem(address, policy);
    return problem && inside(address, problem);
  }
  if (bits < MIN_PREFIX[family]) {
    return `must cover at most 256 addresses (a /${MIN_PREFIX[family]} or narrower); split a wider network into several targets`;
  }
  const refused = refusedInBlock(address, bits, policy);
  return refused && inside(refused.address, refused.problem);
}

/** Why a host name is refused (this machine, the metadata service), or null. */
export function hostnameProblem(host: string, policy: TargetPolicy = DEFAULT_TARGET_POLICY): string | null {
  const internal = internalName(host);
  if (internal === null || (internal === 'loopback' && policy.allowLoopback)) return null;
  return `must not point inside the deployment: ${host} is this machine or its metadata service`;
}

/** `localhost` or a loopback address (127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || judgeAddress(host)?.class === 'loopback';
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
export type TargetReach = 'none' | 'host' | 'url' | 'host_or_url' | 'repository' | 'network';

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
    case 'host_or_url':
      return /^https?:\/\//i.test(target) ? reachProblem('url', target, policy) : reachProblem('host', target, policy);
    case 'repository': {
      const scp = /^[^@/]+@([^:]+):/.exec(target);
      if (scp) return hostnameProblem(scp[1], policy);
      const problem = urlHostProblem(target, policy);
      if (problem !== null || !target.startsWith('http:')) return problem;
      // Plain HTTP only to a local test server (ALLOW_LOOPBACK_TARGETS), never to the Internet.
      return policy.allowLoopback && isLoopbackHost(new URL(target).hostname.replace(/^\[|\]$/g, ''))
        ? null
        : 'repository URLs must use https';
    }
    case 'network': {
      const [address, bits] = target.split('/');
      return isIP(address)
        ? addressProblem(address, bits === undefined ? undefined : Number(bits), policy)
        : hostnameProblem(target, policy);
    }
  }
}
