import { describe, expect, it } from 'vitest';
import type { DnsAnswer, RecordType } from '../../../../lib/dns/resolver.ts';
import { checkSpf } from '../../src/posture/spf/spf-check.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';

const txt = (...records: string[]): DnsAnswer<RecordType> => ({ status: 'found', records });
const address: DnsAnswer<RecordType> = { status: 'found', records: ['192.0.2.1'] };
const mx: DnsAnswer<RecordType> = { status: 'found', records: [{ preference: 10, exchange: 'mx.example.test' }] };

/** `n` includes of records that each cost one more lookup (an `a`). */
function chainOfIncludes(n: number): Record<string, DnsAnswer<RecordType>> {
  const table: Record<string, DnsAnswer<RecordType>> = {};
  const includes = Array.from({ length: n }, (_, i) => `include:i${i}.example.test`).join(' ');
  table['TXT example.test'] = txt(`v=spf1 ${includes} -all`);
  for (let i = 0; i < n; i += 1) {
    table[`TXT i${i}.example.test`] = txt('v=spf1 a -all');
    table[`A i${i}.example.test`] = address;
    table[`AAAA i${i}.example.test`] = { status: 'found', records: ['2001:db8::1'] };
  }
  return table;
}

describe('SPF lookup counting', () => {
  it('counts include, a, mx, ptr, exists and redirect but not ip4, all or exp', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt(
        'v=spf1 ip4:192.0.2.0/24 a mx ptr exists:e.example.test include:inc.example.test exp=x.example.test redirect=r.example.test',
      ),
      'A example.test': address,
      'MX example.test': mx,
      'A e.example.test': address,
      'TXT inc.example.test': txt('v=spf1 -all'),
      'TXT r.example.test': txt('v=spf1 -all'),
    });

    const { data } = await checkSpf('example.test', resolver);

    expect(data.lookups).toBe(6);
    expect(data.tree?.terms.map((term) => term.lookups)).toEqual([0, 1, 1, 1, 1, 1, 0, 1]);
  });

  it('adds the lookups an include spends to the include itself', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 include:a.example.test -all'),
      'TXT a.example.test': txt('v=spf1 include:b.example.test mx -all'),
      'MX a.example.test': mx,
      'TXT b.example.test': txt('v=spf1 a -all'),
      'A b.example.test': address,
    });

    const { data } = await checkSpf('example.test', resolver);

    expect(data.lookups).toBe(4);
    expect(data.tree?.terms[0]).toMatchObject({ term: 'include:a.example.test', lookups: 4, child: { lookups: 3 } });
  });

  it('accepts exactly 10 lookups', async () => {
    const { data, lookupsForLimit } = await checkSpf('example.test', makeFakeResolver(chainOfIncludes(5)));

    expect(data.lookups).toBe(10);
    expect(lookupsForLimit).toBe(10);
    expect(data.permerrors).toEqual([]);
    expect(data.status).toBe('ok');
  });

  it('reports 11 lookups as a permerror and keeps the whole tree', async () => {
    const table = chainOfIncludes(5);
    table['TXT example.test'] = txt(
      'v=spf1 include:i0.example.test include:i1.example.test include:i2.example.test include:i3.example.test include:i4.example.test mx -all',
    );
    table['MX example.test'] = mx;

    const { data, lookupsForLimit } = await checkSpf('example.test', makeFakeResolver(table));

    expect(data.lookups).toBe(11);
    expect(lookupsForLimit).toBe(11);
    expect(data.status).toBe('permerror');
    expect(data.tree?.terms.slice(0, 5).map((term) => term.lookups)).toEqual([2, 2, 2, 2, 2]);
  });

  it('ignores redirect when the record has an all mechanism', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 redirect=r.example.test ~all'),
      'TXT r.example.test': txt('v=spf1 +all'),
    });

    const { data } = await checkSpf('example.test', resolver);

    expect(data.lookups).toBe(0);
    expect(data.all).toBe('~all');
  });

  it('takes the all of a redirect chain', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 redirect=r1.example.test'),
      'TXT r1.example.test': txt('v=spf1 redirect=r2.example.test'),
      'TXT r2.example.test': txt('v=spf1 ip4:192.0.2.1 ?all'),
    });

    const { data, findings } = await checkSpf('example.test', resolver);

    expect(data.lookups).toBe(2);
    expect(data.all).toBe('?all');
    expect(findings).toEqual([expect.objectContaining({ rule_id: 'mailscan.spf.permissive_all', severity: 'medium' })]);
  });

  it('cuts an include loop, reports it, and hands on a count over the limit', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 include:a.example.test -all'),
      'TXT a.example.test': txt('v=spf1 include:example.test -all'),
    });

    const { data, lookupsForLimit } = await checkSpf('example.test', resolver);

    expect(data.loops).toEqual(['example.test -> a.example.test -> example.test']);
    expect(data.lookups).toBe(2);
    expect(lookupsForLimit).toBe(11);
    expect(data.status).toBe('permerror');
  });

  it('follows %{d}, the checked domain, and counts the macros that need the message without following them', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 include:%{d}.spf.example.test exists:%{i}.x.example.test -all'),
      'TXT example.test.spf.example.test': txt('v=spf1 ip4:192.0.2.1 -all'),
    });

    const { data } = await checkSpf('example.test', resolver);

    expect(data.lookups).toBe(2);
    expect(data.macros).toEqual(['include:%{d}.spf.example.test', 'exists:%{i}.x.example.test']);
    expect(resolver.asked.filter((question) => question !== 'TXT example.test')).toEqual(['TXT example.test.spf.example.test']);
  });

  it('counts void lookups from a, mx, exists and missing include targets', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 a:gone.example.test mx:gone.example.test exists:gone.example.test include:gone.example.test -all'),
    });

    const { data, findings } = await checkSpf('example.test', resolver);

    expect(data.void_lookups).toBe(4);
    expect(findings.map((item) => item.rule_id)).toEqual(['mailscan.spf.void_lookup_limit']);
    expect(data.permerrors).toContain('example.test: include:gone.example.test: gone.example.test has no SPF record (permerror)');
  });

  it('marks a domain included twice as a duplicate and counts it twice', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 include:a.example.test include:shared.example.test -all'),
      'TXT a.example.test': txt('v=spf1 include:shared.example.test -all'),
      'TXT shared.example.test': txt('v=spf1 a -all'),
      'A shared.example.test': address,
    });

    const { data } = await checkSpf('example.test', resolver);

    expect(data.duplicate_includes).toEqual(['shared.example.test']);
    expect(data.lookups).toBe(5);
    expect(data.tree?.terms[1]).toMatchObject({ duplicate: true });
  });

  it('reports an include that gets no answer as a temperror, not a missing record', async () => {
    const resolver = makeFakeResolver({
      'TXT example.test': txt('v=spf1 include:slow.example.test -all'),
      'TXT slow.example.test': { status: 'unknown', reason: 'timeout', message: 'no answer within 200 ms' },
    });

    const { data, errors } = await checkSpf('example.test', resolver);

    expect(data.status).toBe('temperror');
    expect(data.permerrors).toEqual([]);
    expect(errors).toEqual([{ surface: 'posture', check: 'spf', message: 'slow.example.test: no answer within 200 ms' }]);
  });

  it('reports a syntax error as a permerror without claiming a missing all', async () => {
    const { data, findings } = await checkSpf(
      'example.test',
      makeFakeResolver({ 'TXT example.test': txt('v=spf1 ip4:192.0.2.1 bogus -all') }),
    );

    expect(data).toMatchObject({ status: 'permerror', permerrors: ['unknown term bogus'] });
    expect(findings).toEqual([]);
  });

  it('reports no record, several records and a permissive all as findings', async () => {
    const none = await checkSpf('example.test', makeFakeResolver({ 'TXT example.test': txt('google-site-verification=abc') }));
    const several = await checkSpf('example.test', makeFakeResolver({ 'TXT example.test': txt('v=spf1 -all', 'v=spf1 ~all') }));
    const open = await checkSpf('example.test', makeFakeResolver({ 'TXT example.test': txt('v=spf1 ip4:192.0.2.1 all') }));

    expect(none.findings.map((item) => item.rule_id)).toEqual(['mailscan.spf.missing']);
    expect(several.findings.map((item) => item.rule_id)).toEqual(['mailscan.spf.multiple_records']);
    expect(open.findings).toEqual([expect.objectContaining({ rule_id: 'mailscan.spf.permissive_all', severity: 'high' })]);
  });
});
