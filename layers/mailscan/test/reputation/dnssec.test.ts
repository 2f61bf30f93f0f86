import { describe, expect, it } from 'vitest';
import { checkDnssec, keyTag } from '../../src/reputation/dnssec.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';
import { context, found, input, nodata, timeout } from './test-context.ts';

// RFC 4034 §5.4: a DNSKEY with key tag 60485 and its SHA-1 DS.
const rfcKey = {
  flags: 256,
  algorithm: 5,
  key: Buffer.from(
    'AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvxegXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw==',
    'base64',
  ),
};
const rfcDs = { keyTag: 60485, algorithm: 5, digestType: 1, digest: Buffer.from('2BB183AF5F22588179A53B0A98631FAD1A292118', 'hex') };

describe('keyTag', () => {
  it('computes the RFC 4034 Appendix B key tag', () => {
    expect(keyTag(rfcKey)).toBe(60485);
  });
});

describe('checkDnssec', () => {
  it('reports a signed zone whose DS matches its DNSKEY, without a finding', async () => {
    const ctx = context({
      table: {
        'SOA dskey.example.com': found({ mname: 'ns', rname: 'h', serial: 1 }),
        'DNSKEY dskey.example.com': found(rfcKey),
        'DS dskey.example.com': found(rfcDs),
      },
    });

    const result = await checkDnssec(input({ domain: 'dskey.example.com' }), ctx);

    expect(result.findings).toEqual([]);
    expect(result.data).toMatchObject({
      state: 'signed',
      zone: 'dskey.example.com',
      dnskey: 'found',
      ds: 'found',
      keys: [{ key_tag: 60485, algorithm_name: 'RSASHA1', sep: false }],
      ds_records: [{ key_tag: 60485, matches_dnskey: true }],
    });
  });

  it('reports a DNSKEY without a DS as signed (an island of trust), without a finding', async () => {
    const ctx = context({ table: { 'DNSKEY brand.test': found(rfcKey), 'DS brand.test': nodata } });

    const result = await checkDnssec(input(), ctx);

    expect(result.findings).toEqual([]);
    expect(result.data).toMatchObject({ state: 'signed', dnskey: 'found', ds: 'absent' });
  });

  it('fires dnssec.unsigned when there is neither DNSKEY nor DS', async () => {
    const ctx = context({ table: { 'DNSKEY brand.test': nodata, 'DS brand.test': nodata } });

    const result = await checkDnssec(input(), ctx);

    expect(result.status).toBe('ok');
    expect(result.data.state).toBe('unsigned');
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.dnssec.unsigned',
        severity: 'low',
        evidence: { zone: 'brand.test', dnskey: 'nodata', ds: 'nodata' },
      }),
    ]);
  });

  it('treats an unknown DNSKEY answer as an error, never as unsigned', async () => {
    const ctx = context({ table: { 'DNSKEY brand.test': timeout, 'DS brand.test': nodata } });

    const result = await checkDnssec(input(), ctx);

    expect(result.status).toBe('error');
    expect(result.data.state).toBe('unknown');
    expect(result.findings).toEqual([]);
    expect(result.errors).toEqual([{ surface: 'reputation', check: 'dnssec', message: 'brand.test: the DNSKEY answer is unknown' }]);
  });

  it('finds the zone apex of a subdomain from its SOA, asking everything at once', async () => {
    const resolver = makeFakeResolver({ 'SOA mail.brand.test': nodata, 'DNSKEY brand.test': found(rfcKey) });
    resolver.hold = true;
    const ctx = context({ resolver });

    const pending = checkDnssec(input({ domain: 'mail.brand.test' }), ctx);
    await Promise.resolve();
    const askedAtOnce = [...resolver.asked];
    resolver.release();
    const result = await pending;

    expect(askedAtOnce.sort()).toEqual([
      'DNSKEY brand.test',
      'DNSKEY mail.brand.test',
      'DS brand.test',
      'DS mail.brand.test',
      'SOA mail.brand.test',
    ]);
    expect(result.data).toMatchObject({ state: 'signed', zone: 'brand.test' });
  });

  it('treats a subdomain with its own SOA as its own zone', async () => {
    const ctx = context({
      table: { 'SOA mail.brand.test': found({ mname: 'ns', rname: 'h', serial: 1 }), 'DNSKEY brand.test': found(rfcKey) },
    });

    const result = await checkDnssec(input({ domain: 'mail.brand.test' }), ctx);

    expect(result.data).toMatchObject({ state: 'unsigned', zone: 'mail.brand.test' });
    expect(result.findings).toHaveLength(1);
  });
});
