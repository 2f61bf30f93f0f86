import { isIPv4, isIPv6 } from 'node:net';

/** The four octets of a dotted-quad IPv4 address, or null when it is not one. */
export function parseIpv4(ip: string): number[] | null {
  if (!isIPv4(ip)) return null;
  return ip.split('.').map(Number);
}

/**
 * The 16 bytes of an IPv6 address (`::` compression and a trailing dotted quad accepted), or null.
 * node:net validates but does not expose the bytes, and the nibble form and the embedded-IPv4
 * checks both need them.
 */
export function parseIpv6(ip: string): Uint8Array | null {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return null;
  let text = bare;
  const tailV4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tailV4) {
    const o = parseIpv4(tailV4[1])!;
    text = text.slice(0, tailV4.index) + (((o[0] << 8) | o[1]).toString(16)) + ':' + (((o[2] << 8) | o[3]).toString(16));
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/** Canonical full form (`2001:0db8:0000:...`) so address comparisons do not depend on notation. */
export function formatIpv6(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16).padStart(4, '0'));
  return groups.join(':');
}

/**
 * The IPv4 address an IPv6 address carries, for the transition forms a connection can end up at
 * the IPv4 host: v4-mapped (::ffff:0:0/96), v4-compatible (::/96, deprecated), NAT64 well-known
 * prefix (64:ff9b::/96) and 6to4 (2002::/16).
 */
export function embeddedIpv4(bytes: Uint8Array): string | null {
  const zero = (from: number, to: number): boolean => bytes.slice(from, to).every((b) => b === 0);
  const v4 = (at: number): string => Array.from(bytes.slice(at, at + 4)).join('.');
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12);
  if (zero(0, 12) && !zero(12, 16) && !(zero(12, 15) && bytes[15] <= 1)) return v4(12);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12)) return v4(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2);
  return null;
}
