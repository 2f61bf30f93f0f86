import { describe, expect, it } from 'vitest';
import { dnsNameMatches, matchingNames, parseSubjectAltName } from '../../engine-kit/src/tls/hostname.ts';

describe('RFC 6125 name matching', () => {
  it.each([
    ['www.example.com', 'www.example.com', true],
    ['WWW.Example.COM.', 'www.example.com', true],
    ['*.example.com', 'www.example.com', true],
    ['*.example.com', 'example.com', false],
    ['*.example.com', 'a.b.example.com', false],
    ['*.com', 'example.com', false],
    ['w*.example.com', 'www.example.com', false],
    ['www.*.com', 'www.example.com', false],
    ['*.example.com', 'xn--caf-dma.example.com', false],
    ['', 'example.com', false],
  ])('%s against %s: %s', (presented, host, expected) => {
    expect(dnsNameMatches(presented, host)).toBe(expected);
  });

  it('uses the CN only when there is no SAN', () => {
    expect(matchingNames({ dnsNames: [], ipAddresses: [], commonName: 'example.com' }, 'example.com')).toEqual(['example.com']);
    expect(matchingNames({ dnsNames: ['other.com'], ipAddresses: [], commonName: 'example.com' }, 'example.com')).toEqual([]);
    expect(matchingNames({ dnsNames: [], ipAddresses: ['10.0.0.1'], commonName: 'example.com' }, 'example.com')).toEqual([]);
  });

  it('matches IPv6 addresses whatever their spelling', () => {
    expect(matchingNames({ dnsNames: [], ipAddresses: ['0:0:0:0:0:0:0:1'] }, '::1')).toEqual(['0:0:0:0:0:0:0:1']);
  });

  it("parses Node's subjectAltName text, quoted names included", () => {
    expect(parseSubjectAltName('DNS:a.example, IP Address:127.0.0.1, DNS:"b,c.example", email:x@y')).toEqual({
      dnsNames: ['a.example', 'b,c.example'],
      ipAddresses: ['127.0.0.1'],
    });
  });
});
