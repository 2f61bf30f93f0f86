import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The smallest prefixes a target may name: at most 256 addresses per scan (DESIGN §14). */
export const MIN_PREFIX = { ipv4: 24, ipv6: 120 } as const;

/** What a target text names: literal addresses (an IP or every address of a CIDR block) or a hostname to resolve. */
export type TargetSpec = { kind: 'addresses'; addresses: string[]; cidr?: string } | { kind: 'host'; host: string };

/** A target text this engine does not scan; the message says why (exit 2, a usage error). */
export class TargetSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetSpecError';
  }
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/i;

function blockAddresses(network: ipaddr.IPv4 | ipaddr.IPv6, prefix: number): string[] {
  const bytes = network.toByteArray();
  const hostBits = bytes.length * 8 - prefix;
  // Zero the host bits, then count up through the last byte (at most 8 host bits by MIN_PREFIX).
  const base = bytes.slice();
  base[base.length - 1] &= (0xff << hostBits) & 0xff;
  const addresses: string[] = [];
  for (let i = 0; i < 2 ** hostBits; i += 1) {
    const next = base.slice();
    next[next.length - 1] = base[base.length - 1] | i;
    addresses.push(ipaddr.fromByteArray(next).toString());
  }
  return addresses;
}

/**
 * Reads a target: an IPv4 or IPv6 address, a CIDR block no larger than a /24 (IPv4) or /120
 * (IPv6), every address of which is scanned (network and broadcast addresses included, as nmap
 * does), or a hostname, which the scan resolves once and vets address by address.
 */
export function parseTargetSpec(text: string): TargetSpec {
  const target = text.trim();
  if (target === '') throw new TargetSpecError('the target is empty');
  const slash = target.indexOf('/');
  if (slash !== -1) {
    const address = target.slice(0, slash);
    const prefixText = target.slice(slash + 1);
    if (!isIP(address) || !/^\d{1,3}$/.test(prefixText)) throw new TargetSpecError(`"${target}" is not a CIDR block (address/prefix)`);
    let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
    try {
      parsed = ipaddr.parseCIDR(`${address}/${Number(prefixText)}`);
    } catch {
      throw new TargetSpecError(`"${target}" has a prefix longer than its address`);
    }
    const [network, prefix] = parsed;
    const family = network.kind();
    const bound = MIN_PREFIX[family];
    if (prefix < bound) {
      const size = family === 'ipv4' ? 2 ** (32 - prefix) : `2^${128 - prefix}`;
      throw new TargetSpecError(
        `${target} holds ${size} addresses; one scan takes at most a /${bound} (${family === 'ipv4' ? 'IPv4' : 'IPv6'}): ` +
          'split a larger block into several targets (docs/netscan.md)',
      );
    }
    return { kind: 'addresses', addresses: blockAddresses(network, prefix), cidr: `${network.toString()}/${prefix}` };
  }
  const bare = target.startsWith('[') && target.endsWith(']') ? target.slice(1, -1) : target;
  if (isIP(bare)) return { kind: 'addresses', addresses: [ipaddr.parse(bare).toString()] };
  if (!HOSTNAME.test(target) || /^[\d.]+$/.test(target))
    throw new TargetSpecError(`"${target}" is not an IP address, a CIDR block or a hostname`);
  return { kind: 'host', host: target.toLowerCase().replace(/\.$/, '') };
}
