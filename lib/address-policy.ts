import { isIP } from 'node:net';

/**
 * The one address policy (DESIGN §11): which addresses the service (webhooks, target validation)
 * and the engines (targets, hosts named by DNS data) may connect to. Whoever controls a target, a
 * scanned domain or a webhook URL chooses the address, so without this a request could be aimed at
 * the deployment's own network (SSRF).
 *
 * The tables follow the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
 * successors), longest prefix first:
 * - a block the registry marks globally reachable is public;
 * - one marked forwardable but not globally reachable (RFC 1918, 100.64/10, benchmarking, fc00::/7,
 *   ...) is `private`: refused unless `allowPrivate`;
 * - loopback (127/8, ::1) is refused unless `allowLoopback` (the local runtime and tests, never AWS);
 * - everything else (this network, link-local with the cloud metadata services, documentation,
 *   reserved, broadcast, multicast, IPv6 space outside 2000::/3 the registries do not assign) is
 *   refused under every setting.
 * An IPv6 address that carries an IPv4 one (mapped, compatible, 6to4, Teredo, NAT64) is judged by
 * the IPv4 address; a translator or tunnel never leads to loopback, so such a form of a loopback
 * address is refused even where loopback is allowed (only the mapped form, which a dual-stack
 * socket uses for the IPv4 address itself, is loopback). docs/address-policy.md has the table.
 *
 * Pure and dependency-free (BigInt and `isIP`), so the API functions and the UI bundle it as well.
 */

/** What a deployment lets connections reach beyond public addresses. */
export interface AddressPolicy {
  /** Blocks forwardable but not globally reachable: RFC 1918, 100.64/10, 198.18/15, fc00::/7, ... */
  allowPrivate: boolean;
  /** 127.0.0.0/8 and ::1: `ALLOW_LOOPBACK_TARGETS` / `<ENGINE>_ALLOW_LOOPBACK`, local only. */
  allowLoopback?: boolean;
}

export const STRICT_POLICY: AddressPolicy = { allowPrivate: false, allowLoopback: false };

/** An address's class: `public` always passes, `never` never does; the others depend on the policy. */
export type AddressClass = 'public' | 'private' | 'loopback' | 'never';

export interface AddressVerdict {
  class: AddressClass;
  /** The registry's block (`loopback`, `private`, `documentation`, ...); null for a public address. */
  label: string | null;
}

type Carrier = 'mapped' | 'compatible' | '6to4' | 'teredo' | 'nat64';
type Entry = [cidr: string, label: string, judged: Exclude<AddressClass, 'public'> | 'public' | Carrier];

const IPV4: Entry[] = [
  ['0.0.0.0/8', 'unspecified', 'never'], // "this network": a destination of 0.0.0.0 reaches this host
  ['10.0.0.0/8', 'private', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT', 'private'],
  ['127.0.0.0/8', 'loopback', 'loopback'],
  ['169.254.0.0/16', 'link-local', 'never'], // 169.254.169.254: instance metadata
  ['172.16.0.0/12', 'private', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments', 'never'],
  ['192.0.0.0/29', 'IPv4 service continuity', 'private'],
  ['192.0.0.8/32', 'IPv4 dummy address', 'never'],
  ['192.0.0.9/32', 'public', 'public'], // PCP anycast
  ['192.0.0.10/32', 'public', 'public'], // TURN anycast
  ['192.0.0.170/31', 'NAT64/DNS64 discovery', 'never'],
  ['192.0.2.0/24', 'documentation', 'never'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast', 'never'],
  ['192.88.99.2/32', 'public', 'public'], // 6a44 relay anycast
  ['192.168.0.0/16', 'private', 'private'],
  ['198.18.0.0/15', 'benchmarking', 'private'],
  ['198.51.100.0/24', 'documentation', 'never'],
  ['203.0.113.0/24', 'documentation', 'never'],
  ['224.0.0.0/4', 'multicast', 'never'],
  ['240.0.0.0/4', 'reserved', 'never'],
  ['255.255.255.255/32', 'broadcast', 'never'],
];

const IPV6: Entry[] = [
  ['::/128', 'unspecified', 'never'], // like 0.0.0.0, reaches this host
  ['::1/128', 'loopback', 'loopback'],
  ['::/96', 'IPv4-compatible', 'compatible'],
  ['::ffff:0:0/96', 'IPv4-mapped', 'mapped'],
  ['64:ff9b::/96', 'NAT64', 'nat64'],
  ['64:ff9b:1::/48', 'local NAT64', 'never'], // translates into the operator's own IPv4 networks
  ['100::/64', 'discard-only', 'private'],
  ['100:0:0:1::/64', 'dummy prefix', 'never'],
  ['2001::/23', 'IETF protocol assignments', 'never'],
  ['2001::/32', 'Teredo', 'teredo'],
  ['2001:1::1/128', 'public', 'public'], // PCP anycast
  ['2001:1::2/128', 'public', 'public'], // TURN anycast
  ['2001:1::3/128', 'public', 'public'], // DNS-SD SRP anycast
  ['2001:2::/48', 'benchmarking', 'private'],
  ['2001:3::/32', 'public', 'public'], // AMT
  ['2001:4:112::/48', 'public', 'public'], // AS112-v6
  ['2001:10::/28', 'deprecated ORCHID', 'never'],
  ['2001:20::/28', 'public', 'public'], // ORCHIDv2
  ['2001:30::/28', 'public', 'public'], // drone remote ID
  ['2001:db8::/32', 'documentation', 'never'],
  ['2002::/16', '6to4', '6to4'],
  ['3fff::/20', 'documentation', 'never'],
  ['5f00::/16', 'segment routing SIDs', 'private'],
  ['fc00::/7', 'unique local', 'private'],
  ['fd00:ec2::/32', 'cloud metadata', 'never'], // fd00:ec2::254 (AWS IMDS), ::253 (DNS), ::123 (NTP)
  ['fe80::/10', 'link-local', 'never'],
  ['fec0::/10', 'deprecated site-local', 'never'],
  ['ff00::/8', 'multicast', 'never'],
];

interface Block {
  start: bigint;
  bits: number;
  label: string;
  judged: Entry[2];
}

/**
 * The tables parsed at the first check, longest prefix first, not at import: every API function
 * and every engine imports this module, most never judge an address in a given run.
 */
let blocks: { 4: Block[]; 6: Block[] } | undefined;
function tables(): { 4: Block[]; 6: Block[] } {
  const compile = (entries: Entry[], family: 4 | 6): Block[] =>
    entries
      .map(([cidr, label, judged]) => {
        const [address, bits] = cidr.split('/');
        return { start: toBigInt(address, family), bits: Number(bits), label, judged };
      })
      .sort((a, b) => b.bits - a.bits);
  return (blocks ??= { 4: compile(IPV4, 4), 6: compile(IPV6, 6) });
}

function toBigInt(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(Number(octet)), 0n);
  let text = address.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const parts =
    tail === undefined ? headParts : [...headParts, ...Array<string>(8 - headParts.length - tailParts.length).fill('0'), ...tailParts];
  return parts.reduce((sum, part) => (sum << 16n) + BigInt(parseInt(part, 16)), 0n);
}

const v4Text = (value: bigint): string => [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');

function lookupBlock(family: 4 | 6, value: bigint): Block | undefined {
  const width = family === 4 ? 32 : 128;
  return tables()[family].find((block) => {
    const shift = BigInt(width - block.bits);
    return block.start >> shift === value >> shift;
  });
}

const RANK: Record<AddressClass, number> = { public: 0, private: 1, loopback: 2, never: 3 };

function judgeV4(value: bigint): AddressVerdict {
  const block = lookupBlock(4, value);
  if (!block || block.judged === 'public') return { class: 'public', label: null };
  return { class: block.judged as AddressClass, label: block.label };
}

/** The IPv4 addresses a carrier form leads to (Teredo: its server and its client, NOT-ed in the last 32 bits). */
function carried(carrier: Carrier, value: bigint): bigint[] {
  const low = value & 0xffffffffn;
  switch (carrier) {
    case '6to4':
      return [(value >> 80n) & 0xffffffffn];
    case 'teredo':
      return [(value >> 64n) & 0xffffffffn, low ^ 0xffffffffn];
    default:
      return [low];
  }
}

function judgeV6(value: bigint): AddressVerdict {
  const block = lookupBlock(6, value);
  // Outside 2000::/3 the IPv6 address space registry assigns nothing but the blocks above.
  if (!block) return value >> 125n === 1n ? { class: 'public', label: null } : { class: 'never', label: 'reserved' };
  if (block.judged === 'public') return { class: 'public', label: null };
  if (block.judged === 'private' || block.judged === 'loopback' || block.judged === 'never') {
    return { class: block.judged, label: block.label };
  }
  const carrier = block.judged;
  let worst: AddressVerdict & { embedded?: string } = { class: 'public', label: null };
  for (const v4 of carried(carrier, value)) {
    const inner = judgeV4(v4);
    // Only the mapped form is the IPv4 address itself; no tunnel or translator forwards to loopback.
    const judged: AddressClass = inner.class === 'loopback' && carrier !== 'mapped' ? 'never' : inner.class;
    if (RANK[judged] > RANK[worst.class]) worst = { class: judged, label: `${inner.label} (embedded ${v4Text(v4)})` };
  }
  return { class: worst.class, label: worst.label };
}

/** `[v6]`, a zone (`fe80::1%eth0`) and surrounding space stripped. */
function bare(ip: string): string {
  return ip
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
}

/**
 * The registry's verdict on an IP literal, or null when it is not one. Only the forms Node's
 * `isIP` accepts are addresses (never `127.1`, octal or hex forms, which some resolvers read).
 */
export function judgeAddress(ip: string): AddressVerdict | null {
  const text = bare(ip);
  const family = isIP(text);
  if (family === 0) return null;
  return family === 4 ? judgeV4(toBigInt(text, 4)) : judgeV6(toBigInt(text, 6));
}

/** Whether `policy` admits an address of this class. */
export function admits(policy: AddressPolicy, addressClass: AddressClass): boolean {
  switch (addressClass) {
    case 'public':
      return true;
    case 'private':
      return policy.allowPrivate;
    case 'loopback':
      return policy.allowLoopback ?? false;
    case 'never':
      return false;
  }
}

/**
 * Why `ip` must not be connected to under `policy` (the registry block, e.g. `loopback`,
 * `link-local (embedded 169.254.169.254)`), or null when it may be.
 */
export function addressProblem(ip: string, policy: AddressPolicy): string | null {
  const verdict = judgeAddress(ip);
  if (!verdict) return 'not an IP address';
  return admits(policy, verdict.class) ? null : verdict.label;
}

/**
 * The first address of the block `ip`/`bits` that `policy` refuses, with why, or null when it
 * admits every one. Every address is judged, so a block is refused when any of it is; a block
 * wider than 65536 addresses is refused whole.
 */
export function refusedInBlock(ip: string, bits: number, policy: AddressPolicy): { address: string; problem: string } | null {
  const text = bare(ip);
  const family = isIP(text);
  if (family !== 4 && family !== 6) return { address: ip, problem: 'not an IP address' };
  const width = family === 4 ? 32 : 128;
  if (!Number.isInteger(bits) || bits < 0 || bits > width) return { address: ip, problem: 'not a prefix length' };
  if (width - bits > 16) return { address: ip, problem: 'wider than 65536 addresses' };
  const size = 1n << BigInt(width - bits);
  const given = toBigInt(text, family);
  const first = (given / size) * size;
  for (let offset = 0n; offset < size; offset += 1n) {
    const value = first + offset;
    const verdict = family === 4 ? judgeV4(value) : judgeV6(value);
    if (!admits(policy, verdict.class))
      return { address: value === given ? text : addressText(family, value), problem: verdict.label ?? '' };
  }
  return null;
}

function addressText(family: 4 | 6, value: bigint): string {
  if (family === 4) return v4Text(value);
  return Array.from({ length: 8 }, (_, group) => ((value >> BigInt(112 - 16 * group)) & 0xffffn).toString(16)).join(':');
}

/** Names that always mean this machine or a cloud's metadata service, whatever DNS says. */
const METADATA_NAMES = /^(metadata|metadata\.google\.internal|instance-data(\.ec2\.internal)?)$/;

/**
 * What a host name always means (`localhost` and `*.localhost`: this machine, RFC 6761; the
 * metadata services' names), or null for any other name. Lower-case, a trailing dot ignored.
 */
export function internalName(host: string): 'loopback' | 'cloud metadata' | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  return METADATA_NAMES.test(name) ? 'cloud metadata' : null;
}

/**
 * Why a fetch or probe must not connect to `ip` (null when it may): private networks and loopback
 * are separate settings (`<PREFIX>_ALLOW_PRIVATE`, `<PREFIX>_ALLOW_LOOPBACK`), so a deployment that
 * scans private networks never lets an engine reach its own host (in Lambda, the runtime API on
 * 127.0.0.1:9001).
 */
export function blockedAddressReason(ip: string, policy: { allowPrivate: boolean; allowLoopback: boolean }): string | null {
  return addressProblem(ip, policy);
}
