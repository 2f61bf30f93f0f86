import { describe, expect, it } from 'vitest';
import { parseTargetSpec, TargetSpecError } from '../src/targets.ts';

describe('parseTargetSpec', () => {
  it('reads an address as itself', () => {
    expect(parseTargetSpec('192.0.2.7')).toEqual({ kind: 'addresses', addresses: ['192.0.2.7'] });
    expect(parseTargetSpec('[2001:db8::1]')).toEqual({ kind: 'addresses', addresses: ['2001:db8::1'] });
  });

  it('expands a /24 to its 256 addresses, network and broadcast included', () => {
    const spec = parseTargetSpec('198.51.100.77/24');
    expect(spec.kind).toBe('addresses');
    if (spec.kind !== 'addresses') return;
    expect(spec.cidr).toBe('198.51.100.77/24');
    expect(spec.addresses).toHaveLength(256);
    expect(spec.addresses[0]).toBe('198.51.100.0');
    expect(spec.addresses[255]).toBe('198.51.100.255');
  });

  it('expands small blocks from their network address', () => {
    expect(parseTargetSpec('192.0.2.9/30')).toMatchObject({ addresses: ['192.0.2.8', '192.0.2.9', '192.0.2.10', '192.0.2.11'] });
    expect(parseTargetSpec('2001:db8::1:0/120')).toMatchObject({ addresses: expect.arrayContaining(['2001:db8::1:0', '2001:db8::1:ff']) });
    expect(parseTargetSpec('2001:db8::5/127')).toMatchObject({ addresses: ['2001:db8::4', '2001:db8::5'] });
  });

  it('refuses blocks over the bound and says how to split them', () => {
    expect(() => parseTargetSpec('10.10.0.0/16')).toThrow(/65536 addresses; one scan takes at most a \/24/);
    expect(() => parseTargetSpec('2001:db8::/64')).toThrow(/at most a \/120/);
  });

  it('reads a hostname, lowercased', () => {
    expect(parseTargetSpec('Office.Acme.Example.')).toEqual({ kind: 'host', host: 'office.acme.example' });
  });

  it.each([[''], ['not a host!!'], ['10.0.0.0/33'], ['10.0.0/24'], ['http://example.com'], ['1.2.3']])('refuses %j', (text) => {
    expect(() => parseTargetSpec(text)).toThrow(TargetSpecError);
  });
});
