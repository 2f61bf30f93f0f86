import { describe, expect, it } from 'vitest';
import { parseNameserver, parseNameservers } from '../../../../lib/dns/nameservers.ts';

describe('nameserver parsing', () => {
  it('accepts IPv4 and IPv6 addresses with and without a port', () => {
    expect(parseNameserver('192.0.2.53')).toEqual({ host: '192.0.2.53', port: 53 });
    expect(parseNameserver('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 });
    expect(parseNameserver('2001:db8::53')).toEqual({ host: '2001:db8::53', port: 53 });
    expect(parseNameserver('[::1]:5353')).toEqual({ host: '::1', port: 5353 });
  });

  it('rejects host names, bad ports and garbage', () => {
    expect(parseNameserver('dns.example.com')).toBeNull();
    expect(parseNameserver('127.0.0.1:0')).toBeNull();
    expect(parseNameserver('127.0.0.1:70000')).toBeNull();
    expect(parseNameserver('')).toBeNull();
  });

  it('splits comma-separated lists and refuses a list with one bad entry', () => {
    expect(parseNameservers(['127.0.0.1:53,192.0.2.1'])).toHaveLength(2);
    expect(parseNameservers(['127.0.0.1', 'nope'])).toBeNull();
  });
});
