import { describe, expect, it } from 'vitest';
import { addressProblem, internalName, judgeAddress, refusedInBlock, type AddressPolicy } from '../../lib/address-policy.ts';

/**
 * The registries' verdict, address by address (IANA IPv4 and IPv6 Special-Purpose Address
 * Registries, RFC 6890 and successors; docs/address-policy.md). Columns: the block the address is
 * judged by (null: globally reachable), then the verdict under the default setting, under
 * allowPrivate and under allowLoopback: `+` connects, `-` refused.
 */
const TABLE: [address: string, block: string | null, strict: '+' | '-', allowPrivate: '+' | '-', allowLoopback: '+' | '-'][] = [
  // IPv4: globally reachable
  ['8.8.8.8', null, '+', '+', '+'],
  ['93.184.215.14', null, '+', '+', '+'],
  ['1.1.1.1', null, '+', '+', '+'],
  ['192.0.0.9', null, '+', '+', '+'], // PCP anycast, globally reachable inside 192.0.0.0/24
  ['192.0.0.10', null, '+', '+', '+'], // TURN anycast
  ['192.31.196.1', null, '+', '+', '+'], // AS112-v4
  ['192.175.48.1', null, '+', '+', '+'], // AS112 direct delegation
  ['223.255.255.255', null, '+', '+', '+'],
  // IPv4: forwardable, not globally reachable
  ['10.0.0.1', 'private', '-', '+', '-'],
  ['172.16.0.1', 'private', '-', '+', '-'],
  ['172.31.255.254', 'private', '-', '+', '-'],
  ['192.168.1.1', 'private', '-', '+', '-'],
  ['100.64.0.1', 'carrier-grade NAT', '-', '+', '-'],
  ['100.127.255.254', 'carrier-grade NAT', '-', '+', '-'],
  ['198.18.0.1', 'benchmarking', '-', '+', '-'],
  ['192.0.0.1', 'IPv4 service continuity', '-', '+', '-'],
  // IPv4: loopback
  ['127.0.0.1', 'loopback', '-', '-', '+'],
  ['127.255.255.254', 'loopback', '-', '-', '+'],
  // IPv4: never
  ['0.0.0.0', 'unspecified', '-', '-', '-'],
  ['0.1.2.3', 'unspecified', '-', '-', '-'],
  ['169.254.169.254', 'link-local', '-', '-', '-'],
  ['169.254.0.1', 'link-local', '-', '-', '-'],
  ['192.0.0.8', 'IPv4 dummy address', '-', '-', '-'],
  ['192.0.0.170', 'NAT64/DNS64 discovery', '-', '-', '-'],
  ['192.0.0.100', 'IETF protocol assignments', '-', '-', '-'],
  ['192.0.2.1', 'documentation', '-', '-', '-'],
  ['198.51.100.7', 'documentation', '-', '-', '-'],
  ['203.0.113.9', 'documentation', '-', '-', '-'],
  ['192.88.99.1', 'deprecated 6to4 relay anycast', '-', '-', '-'],
  ['224.0.0.1', 'multicast', '-', '-', '-'],
  ['239.255.255.250', 'multicast', '-', '-', '-'],
  ['240.0.0.1', 'reserved', '-', '-', '-'],
  ['255.255.255.255', 'broadcast', '-', '-', '-'],
  // IPv6: globally reachable
  ['2606:4700::1111', null, '+', '+', '+'],
  ['2a00:1450:4001:80b::200e', null, '+', '+', '+'],
  ['2001:4860:4860::8888', null, '+', '+', '+'],
  ['2001:3::1', null, '+', '+', '+'], // AMT
  ['2001:1::1', null, '+', '+', '+'], // PCP anycast
  // IPv6: forwardable, not globally reachable
  ['fc00::1', 'unique local', '-', '+', '-'],
  ['fd12:3456::1', 'unique local', '-', '+', '-'],
  ['2001:2::1', 'benchmarking', '-', '+', '-'],
  ['100::1', 'discard-only', '-', '+', '-'],
  // IPv6: loopback
  ['::1', 'loopback', '-', '-', '+'],
  ['[::1]', 'loopback', '-', '-', '+'],
  // IPv6: never
  ['::', 'unspecified', '-', '-', '-'],
  ['fe80::1', 'link-local', '-', '-', '-'],
  ['fe80::1%eth0', 'link-local', '-', '-', '-'],
  ['fd00:ec2::254', 'cloud metadata', '-', '-', '-'],
  ['ff02::1', 'multicast', '-', '-', '-'],
  ['2001:db8::1', 'documentation', '-', '-', '-'],
  ['3fff::1', 'documentation', '-', '-', '-'],
  ['64:ff9b:1::1', 'local NAT64', '-', '-', '-'],
  ['64:ff9b:1::8.8.8.8', 'local NAT64', '-', '-', '-'],
  ['fec0::1', 'deprecated site-local', '-', '-', '-'],
  ['2001:10::1', 'deprecated ORCHID', '-', '-', '-'],
  ['2001:100::1', 'IETF protocol assignments', '-', '-', '-'],
  ['4000::1', 'reserved', '-', '-', '-'],
  // IPv6 forms carrying an IPv4 address, judged by that address
  ['::ffff:8.8.8.8', null, '+', '+', '+'],
  ['::ffff:127.0.0.1', 'loopback (embedded 127.0.0.1)', '-', '-', '+'],
  ['::ffff:a00:1', 'private (embedded 10.0.0.1)', '-', '+', '-'],
  ['::ffff:169.254.169.254', 'link-local (embedded 169.254.169.254)', '-', '-', '-'],
  ['::ffff:0.0.0.0', 'unspecified (embedded 0.0.0.0)', '-', '-', '-'],
  ['::8.8.8.8', null, '+', '+', '+'],
  ['::169.254.169.254', 'link-local (embedded 169.254.169.254)', '-', '-', '-'],
  ['::127.0.0.1', 'loopback (embedded 127.0.0.1)', '-', '-', '-'],
  ['::a00:1', 'private (embedded 10.0.0.1)', '-', '+', '-'],
  ['::2', 'unspecified (embedded 0.0.0.2)', '-', '-', '-'],
  ['2002:808:808::1', null, '+', '+', '+'],
  ['2002:7f00:1::1', 'loopback (embedded 127.0.0.1)', '-', '-', '-'],
  ['2002:a9fe:a9fe::1', 'link-local (embedded 169.254.169.254)', '-', '-', '-'],
  ['2002:c0a8:101::1', 'private (embedded 192.168.1.1)', '-', '+', '-'],
  ['64:ff9b::8.8.8.8', null, '+', '+', '+'],
  ['64:ff9b::a9fe:a9fe', 'link-local (embedded 169.254.169.254)', '-', '-', '-'],
  ['64:ff9b::7f00:1', 'loopback (embedded 127.0.0.1)', '-', '-', '-'],
  ['64:ff9b::a00:1', 'private (embedded 10.0.0.1)', '-', '+', '-'],
  // Teredo: server 65.54.227.120, client the bitwise NOT of the last 32 bits
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', null, '+', '+', '+'], // client 8.8.8.8
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback (embedded 127.0.0.1)', '-', '-', '-'], // client 127.0.0.1
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'link-local (embedded 169.254.169.254)', '-', '-', '-'],
  ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'private (embedded 10.0.0.1)', '-', '+', '-'], // server 10.0.0.1
];

const SETTINGS: [name: string, policy: AddressPolicy, column: 2 | 3 | 4][] = [
  ['default', { allowPrivate: false, allowLoopback: false }, 2],
  ['allowPrivate', { allowPrivate: true, allowLoopback: false }, 3],
  ['allowLoopback', { allowPrivate: false, allowLoopback: true }, 4],
];

describe('the address policy against the IANA special-purpose registries', () => {
  it('covers at least 60 addresses', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(60);
  });

  describe.each(SETTINGS)('under the %s setting', (_name, policy, column) => {
    it.each(TABLE)('%s (%s)', (...row) => {
      const [address, block] = row;
      expect(addressProblem(address, policy)).toBe(row[column] === '+' ? null : block);
    });
  });

  it('opens private and loopback together without opening what is never forwarded', () => {
    const both = { allowPrivate: true, allowLoopback: true };
    expect(addressProblem('10.0.0.1', both)).toBeNull();
    expect(addressProblem('127.0.0.1', both)).toBeNull();
    for (const never of ['0.0.0.0', '::', '169.254.169.254', 'fd00:ec2::254', '2002:7f00:1::1', '64:ff9b:1::1', '192.0.2.1']) {
      expect(addressProblem(never, both), never).not.toBeNull();
    }
  });

  it('reads only the address forms Node connects to', () => {
    for (const text of ['127.1', '0x7f.0.0.1', '017700000001', 'localhost', '', '1.2.3.4.5', '2001:db8::g']) {
      expect(judgeAddress(text), text).toBeNull();
      expect(addressProblem(text, { allowPrivate: true, allowLoopback: true })).toBe('not an IP address');
    }
  });

  it('judges every address of a block, naming the first refused one', () => {
    expect(refusedInBlock('8.8.8.0', 24, { allowPrivate: false })).toBeNull();
    expect(refusedInBlock('10.0.3.0', 24, { allowPrivate: false })).toEqual({ address: '10.0.3.0', problem: 'private' });
    expect(refusedInBlock('10.0.3.0', 24, { allowPrivate: true })).toBeNull();
    // 192.0.0.0/29 is forwardable; 192.0.0.8 in the same /24 is not.
    expect(refusedInBlock('192.0.0.0', 24, { allowPrivate: true })).toEqual({ address: '192.0.0.8', problem: 'IPv4 dummy address' });
    expect(refusedInBlock('::ffff:a9fe:a900', 120, { allowPrivate: true })?.problem).toBe('link-local (embedded 169.254.169.0)');
    expect(refusedInBlock('2606:4700::', 120, { allowPrivate: false })).toBeNull();
  });

  it('names the host names that always mean this machine or a metadata service', () => {
    expect(['localhost', 'LOCALHOST.', 'app.localhost'].map(internalName)).toEqual(['loopback', 'loopback', 'loopback']);
    expect(['metadata', 'metadata.google.internal', 'instance-data', 'instance-data.ec2.internal'].map(internalName)).toEqual(
      Array(4).fill('cloud metadata'),
    );
    expect(['localhost.example.com', 'metadata.example.com', 'example.com'].map(internalName)).toEqual([null, null, null]);
  });
});
