import { describe, expect, it } from 'vitest';
import { checkDane } from '../../src/reputation/dane.ts';
import { context, input, timeout } from './test-context.ts';

const mx = (host: string) => ({ host, preference: 10, ipv4: [], ipv6: [] });

describe('checkDane', () => {
  it('reports TLSA records with usage, selector and matching type for each MX', async () => {
    const tlsa = { usage: 3, selector: 1, matchingType: 1, certificate: Buffer.from('ab'.repeat(32), 'hex') };
    const ctx = context({ table: { 'TLSA _25._tcp.mx1.brand.test': { status: 'found', records: [tlsa], authenticated: true } } });

    const result = await checkDane(input({ mx: [mx('mx1.brand.test'), mx('mx2.brand.test')] }), ctx);

    expect(result).toMatchObject({ status: 'ok', findings: [], errors: [] });
    expect(result.data.hosts).toEqual([
      {
        host: 'mx1.brand.test',
        name: '_25._tcp.mx1.brand.test',
        status: 'found',
        dnssec_validated: true,
        records: [
          {
            usage: 3,
            usage_name: 'DANE-EE',
            selector: 1,
            selector_name: 'SPKI',
            matching_type: 1,
            matching_type_name: 'SHA2-256',
            data: 'ab'.repeat(32),
          },
        ],
      },
      { host: 'mx2.brand.test', name: '_25._tcp.mx2.brand.test', status: 'absent' },
    ]);
  });

  it('reports an unknown TLSA answer as an error for that host only, never as absent', async () => {
    const ctx = context({ table: { 'TLSA _25._tcp.mx1.brand.test': timeout } });

    const result = await checkDane(input({ mx: [mx('mx1.brand.test'), mx('mx2.brand.test')] }), ctx);

    expect(result.status).toBe('error');
    expect(result.data.hosts.map((host) => host.status)).toEqual(['unknown', 'absent']);
    expect(result.errors).toEqual([
      { surface: 'reputation', check: 'dane', message: expect.stringContaining('_25._tcp.mx1.brand.test: DNS timeout') },
    ]);
  });

  it('skips a null MX and asks each host once', async () => {
    const ctx = context({ table: {} });

    const result = await checkDane(input({ mx: [mx('.'), mx('MX1.brand.test.'), mx('mx1.brand.test')] }), ctx);

    expect(result.data.hosts.map((host) => host.host)).toEqual(['mx1.brand.test']);
  });
});
