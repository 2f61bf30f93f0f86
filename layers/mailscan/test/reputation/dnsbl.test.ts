import { describe, expect, it } from 'vitest';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';
import { checkDnsbl, checkTrustlist, reverseIp } from '../../src/reputation/dnsbl.ts';
import { context, found, input, timeout } from './test-context.ts';

const mx = [{ host: 'mx1.brand.test', preference: 10, ipv4: ['203.0.113.201'], ipv6: ['2001:db8::1'] }];

describe('reverseIp', () => {
  it('reverses the IPv4 octets', () => {
    expect(reverseIp('203.0.113.201')).toBe('201.113.0.203');
  });

  it('writes IPv6 as 32 reversed nibbles', () => {
    expect(reverseIp('2001:db8::1')).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2');
  });
});

describe('checkDnsbl', () => {
  it('reports a listing with the list, subject, return code and meaning', async () => {
    const ctx = context({
      table: { 'A 201.113.0.203.zen.spamhaus.org': found('127.0.0.2', '127.0.0.4') },
      config: { dnsbl: { ipZones: ['zen.spamhaus.org'], domainZones: [] } },
    });

    const result = await checkDnsbl(input({ mx }), ctx);

    expect(result.status).toBe('ok');
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.dnsbl.listed',
        severity: 'high',
        evidence: {
          list: 'Spamhaus ZEN',
          zone: 'zen.spamhaus.org',
          subject: '203.0.113.201',
          return_codes: ['127.0.0.2', '127.0.0.4'],
          meanings: ['SBL: Spamhaus SBL data', 'XBL: exploited host (CBL)'],
        },
      }),
    ]);
  });

  it('reports an unlisted subject as not listed, with no finding', async () => {
    const ctx = context({ config: { dnsbl: { ipZones: ['zen.spamhaus.org'], domainZones: ['dbl.spamhaus.org'] } } });

    const result = await checkDnsbl(input({ mx }), ctx);

    expect(result.status).toBe('ok');
    expect(result.findings).toEqual([]);
    expect(result.data.results.map((r) => [r.query, r.status])).toEqual([
      ['brand.test.dbl.spamhaus.org', 'not_listed'],
      ['201.113.0.203.zen.spamhaus.org', 'not_listed'],
      [`${reverseIp('2001:db8::1')}.zen.spamhaus.org`, 'not_listed'],
    ]);
  });

  it.each([
    ['zen.spamhaus.org', 'ip', 'A 201.113.0.203.zen.spamhaus.org', '127.255.255.254', 'public or open resolver'],
    ['zen.spamhaus.org', 'ip', 'A 201.113.0.203.zen.spamhaus.org', '127.255.255.252', 'typing error'],
    ['dbl.spamhaus.org', 'domain', 'A brand.test.dbl.spamhaus.org', '127.255.255.255', 'excessive number of queries'],
    ['multi.uribl.com', 'domain', 'A brand.test.multi.uribl.com', '127.0.0.1', 'query refused'],
    ['multi.surbl.org', 'domain', 'A brand.test.multi.surbl.org', '127.0.0.1', 'query refused'],
  ])('treats %s answering %s-query with a refusal code as an error, never listed or clean', async (zone, kind, key, code, meaning) => {
    const zones = kind === 'ip' ? { ipZones: [zone], domainZones: [] } : { ipZones: [], domainZones: [zone] };
    const ctx = context({ table: { [key]: found(code) }, config: { dnsbl: zones } });

    const result = await checkDnsbl(input({ mx: mx.map((m) => ({ ...m, ipv6: [] })) }), ctx);

    expect(result.status).toBe('error');
    expect(result.findings).toEqual([]);
    expect(result.data.results[0]).toMatchObject({ status: 'error', return_codes: [code] });
    expect(result.errors).toEqual([{ surface: 'reputation', check: 'dnsbl', message: expect.stringContaining(meaning) }]);
  });

  it('treats a DNS timeout as an error for that list while other lists still report', async () => {
    const ctx = context({
      table: { 'A 201.113.0.203.zen.spamhaus.org': timeout, 'A 201.113.0.203.bl.spamcop.net': found('127.0.0.2') },
      config: { dnsbl: { ipZones: ['zen.spamhaus.org', 'bl.spamcop.net'], domainZones: [] } },
    });

    const result = await checkDnsbl(input({ mx }), ctx);

    expect(result.status).toBe('error');
    expect(result.errors).toEqual([
      { surface: 'reputation', check: 'dnsbl', message: expect.stringContaining('zen.spamhaus.org 203.0.113.201: DNS timeout') },
    ]);
    expect(result.findings.map((f) => f.evidence.list)).toEqual(['SpamCop']);
  });

  it('treats an answer outside 127.0.0.0/8 as an error (a resolver rewriting NXDOMAIN)', async () => {
    const ctx = context({
      table: { 'A brand.test.dbl.spamhaus.org': found('198.51.100.7') },
      config: { dnsbl: { ipZones: [], domainZones: ['dbl.spamhaus.org'] } },
    });

    const result = await checkDnsbl(input(), ctx);

    expect(result.data.results[0].status).toBe('error');
    expect(result.findings).toEqual([]);
  });

  it('decodes bitmask lists and asks about the organizational domain too', async () => {
    const ctx = context({
      table: { 'A brand.test.multi.surbl.org': found('127.0.0.24') },
      config: { dnsbl: { ipZones: [], domainZones: ['multi.surbl.org'] } },
    });

    const result = await checkDnsbl(input({ domain: 'mail.brand.test' }), ctx);

    expect(result.data.results.map((r) => r.subject)).toEqual(['mail.brand.test', 'brand.test']);
    expect(result.findings[0].evidence).toMatchObject({ subject: 'brand.test', meanings: ['PH: phishing, MW: malware'] });
  });

  it('asks only IPv4 subjects of lists that do not serve IPv6', async () => {
    const resolver = makeFakeResolver({});
    const ctx = context({ resolver, config: { dnsbl: { ipZones: ['bl.spamcop.net'], domainZones: [] } } });

    await checkDnsbl(input({ mx }), ctx);

    expect(resolver.asked).toEqual(['A 1.0.0.127.bl.spamcop.net', 'A 201.113.0.203.bl.spamcop.net']);
  });

  it('rewrites Spamhaus zones to the DQS form with a key and never shows the key', async () => {
    const resolver = makeFakeResolver({ 'A 201.113.0.203.k3y123.zen.dq.spamhaus.net': found('127.0.0.3') });
    const ctx = context({
      resolver,
      config: { dnsbl: { ipZones: ['zen.spamhaus.org', 'bl.spamcop.net'], domainZones: ['dbl.spamhaus.org'] }, spamhausDqsKey: 'k3y123' },
    });

    const result = await checkDnsbl(input({ mx: mx.map((m) => ({ ...m, ipv6: [] })) }), ctx);

    expect(resolver.asked.filter((q) => !/ (1\.0\.0\.127|invalid)\./.test(q)).sort()).toEqual([
      'A 201.113.0.203.bl.spamcop.net',
      'A 201.113.0.203.k3y123.zen.dq.spamhaus.net',
      'A brand.test.k3y123.dbl.dq.spamhaus.net',
    ]);
    expect(result.data.list_checks.map((c) => c.query).sort()).toEqual([
      '1.0.0.127.<dqs-key>.zen.dq.spamhaus.net',
      '1.0.0.127.bl.spamcop.net',
      'invalid.<dqs-key>.dbl.dq.spamhaus.net',
    ]);
    expect(result.data.dqs).toBe(true);
    expect(result.findings[0].evidence).toMatchObject({ zone: 'zen.spamhaus.org', return_codes: ['127.0.0.3'] });
    expect(JSON.stringify(result)).not.toContain('k3y123');
  });

  it('issues every lookup before any answer arrives', async () => {
    const resolver = makeFakeResolver({});
    resolver.hold = true;
    const ctx = context({
      resolver,
      config: { dnsbl: { ipZones: ['zen.spamhaus.org', 'bl.spamcop.net'], domainZones: ['dbl.spamhaus.org'] } },
    });

    const pending = checkDnsbl(input({ mx }), ctx);
    await Promise.resolve();
    const askedBeforeRelease = resolver.asked.length;
    resolver.release();
    await pending;

    // Four subject queries (ZEN asks IPv4 and IPv6) and one RFC 5782 test query per list.
    expect(askedBeforeRelease).toBe(7);
  });

  it('treats any 127/8 answer from a zone without a table as a listing', async () => {
    const ctx = context({
      table: { 'A 201.113.0.203.bl.example.test': found('127.0.0.9') },
      config: { dnsbl: { ipZones: ['bl.example.test'], domainZones: [] } },
    });

    const result = await checkDnsbl(input({ mx: mx.map((m) => ({ ...m, ipv6: [] })) }), ctx);

    expect(result.findings[0].evidence).toMatchObject({ list: 'bl.example.test', meanings: ['listed (undocumented return code)'] });
  });
});

describe('checkDnsbl with a list we have no return-code table for', () => {
  const ipv4Mx = mx.map((m) => ({ ...m, ipv6: [] }));
  const unknownList = { dnsbl: { ipZones: ['bl.example.test'], domainZones: [] } };

  it.each(['127.255.255.254', '127.255.255.0', '127.255.255.255'])(
    'treats %s (127.255.255.0/24) as an error naming the list and the code, never a listing',
    async (code) => {
      const ctx = context({ table: { 'A 201.113.0.203.bl.example.test': found(code) }, config: unknownList });

      const result = await checkDnsbl(input({ mx: ipv4Mx }), ctx);

      expect(result.status).toBe('error');
      expect(result.findings).toEqual([]);
      expect(result.data.results[0]).toMatchObject({ status: 'error', return_codes: [code] });
      expect(result.errors).toEqual([
        {
          surface: 'reputation',
          check: 'dnsbl',
          message: `bl.example.test 203.0.113.201: ${code}: query refused (127.255.255.0/24 is reserved for errors)`,
        },
      ]);
    },
  );

  it('treats an answer outside 127.0.0.0/8 as an error naming the list and the code', async () => {
    const ctx = context({ table: { 'A 201.113.0.203.bl.example.test': found('198.51.100.7') }, config: unknownList });

    const result = await checkDnsbl(input({ mx: ipv4Mx }), ctx);

    expect(result.findings).toEqual([]);
    expect(result.errors).toEqual([
      { surface: 'reputation', check: 'dnsbl', message: 'bl.example.test 203.0.113.201: answer 198.51.100.7 is outside 127.0.0.0/8' },
    ]);
  });

  it('treats the listings of a list that lists 127.0.0.1 as errors: it answers everything', async () => {
    const ctx = context({
      table: { 'A 1.0.0.127.bl.example.test': found('127.0.0.2'), 'A 201.113.0.203.bl.example.test': found('127.0.0.2') },
      config: unknownList,
    });

    const result = await checkDnsbl(input({ mx: ipv4Mx }), ctx);

    expect(result.status).toBe('error');
    expect(result.findings).toEqual([]);
    expect(result.data.list_checks).toEqual([
      {
        list: 'bl.example.test',
        zone: 'bl.example.test',
        query: '1.0.0.127.bl.example.test',
        status: 'answers_everything',
        return_codes: ['127.0.0.2'],
      },
    ]);
    expect(result.errors).toEqual([
      {
        surface: 'reputation',
        check: 'dnsbl',
        message: expect.stringMatching(
          /^bl\.example\.test 203\.0\.113\.201: 127\.0\.0\.2: not a listing: .*1\.0\.0\.127\.bl\.example\.test/,
        ),
      },
    ]);
  });

  it('asks a domain list about "invalid" once, however many subjects it has, and distrusts it when listed', async () => {
    const resolver = makeFakeResolver({
      'A invalid.dbl.example.test': found('127.0.1.2'),
      'A mail.brand.test.dbl.example.test': found('127.0.1.2'),
    });
    const ctx = context({ resolver, config: { dnsbl: { ipZones: [], domainZones: ['dbl.example.test'] } } });

    const result = await checkDnsbl(input({ domain: 'mail.brand.test' }), ctx);

    expect(resolver.asked.filter((q) => q.includes('invalid'))).toEqual(['A invalid.dbl.example.test']);
    expect(result.findings).toEqual([]);
    expect(result.data.results.map((r) => [r.subject, r.status])).toEqual([
      ['mail.brand.test', 'error'],
      ['brand.test', 'not_listed'],
    ]);
  });

  it('keeps a listing when the test query gets no answer, and says so', async () => {
    const ctx = context({
      table: { 'A 1.0.0.127.bl.example.test': timeout, 'A 201.113.0.203.bl.example.test': found('127.0.0.2') },
      config: unknownList,
    });

    const result = await checkDnsbl(input({ mx: ipv4Mx }), ctx);

    expect(result.findings.map((f) => f.rule_id)).toEqual(['mailscan.dnsbl.listed']);
    expect(result.data.list_checks[0].status).toBe('unknown');
  });
});

describe('checkTrustlist', () => {
  it('reports the DNSWL trust level and category without a finding', async () => {
    const ctx = context({
      table: { 'A 201.113.0.203.list.dnswl.org': found('127.0.3.2') },
      config: { trustlist: { zones: ['list.dnswl.org'] } },
    });

    const result = await checkTrustlist(input({ mx: mx.map((m) => ({ ...m, ipv6: [] })) }), ctx);

    expect(result.findings).toEqual([]);
    expect(result.data.results[0]).toMatchObject({ status: 'listed', meanings: ['trust medium (email service providers)'] });
  });

  it('treats the DNSWL refusal code 127.0.0.255 as an error', async () => {
    const ctx = context({
      table: { 'A 201.113.0.203.list.dnswl.org': found('127.0.0.255') },
      config: { trustlist: { zones: ['list.dnswl.org'] } },
    });

    const result = await checkTrustlist(input({ mx: mx.map((m) => ({ ...m, ipv6: [] })) }), ctx);

    expect(result.status).toBe('error');
    expect(result.data.results[0].status).toBe('error');
    expect(result.errors[0]).toMatchObject({ check: 'trustlist', message: expect.stringContaining('query refused') });
  });
});
