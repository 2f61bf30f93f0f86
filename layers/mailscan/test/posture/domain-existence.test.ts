import { describe, expect, it } from 'vitest';
import { checkDomainExistence } from '../../src/posture/domain-existence.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';
import { found, nodata, nxdomain, timeout } from '../reputation/test-context.ts';

const soa = { mname: 'ns.brand.test', rname: 'hostmaster.brand.test', serial: 7 };

describe('checkDomainExistence', () => {
  it('reports a domain that answers NXDOMAIN with the closest existing parent and its zone SOA', async () => {
    const resolver = makeFakeResolver({ 'SOA mail.brand.test': nodata, 'SOA brand.test': found(soa), 'SOA test': timeout });

    const result = await checkDomainExistence('typo.mail.brand.test', resolver);

    expect(result).toEqual({
      exists: false,
      evidence: {
        answers: [
          { name: 'typo.mail.brand.test', type: 'TXT', rcode: 'NXDOMAIN' },
          { name: 'typo.mail.brand.test', type: 'MX', rcode: 'NXDOMAIN' },
        ],
        closest_existing_parent: 'mail.brand.test',
        soa: { zone: 'brand.test', ...soa },
      },
    });
  });

  it('skips parents that do not exist either', async () => {
    const resolver = makeFakeResolver({ 'SOA brand.test': found(soa) });

    const result = await checkDomainExistence('a.b.brand.test', resolver);

    expect(result).toMatchObject({ exists: false, evidence: { closest_existing_parent: 'brand.test', soa: { zone: 'brand.test' } } });
  });

  it('leaves the parent undetermined when its answer is unknown', async () => {
    const resolver = makeFakeResolver({ 'SOA brand.test': timeout, 'SOA test': found(soa) });

    const result = await checkDomainExistence('typo.brand.test', resolver);

    expect(result).toMatchObject({ exists: false, evidence: { closest_existing_parent: null, soa: null } });
  });

  it.each([
    ['a record is found', { 'TXT brand.test': found('v=spf1 -all') }],
    ['the name exists without the type (NODATA)', { 'TXT brand.test': nodata, 'MX brand.test': nodata }],
    ['one answer is NODATA and the other NXDOMAIN', { 'TXT brand.test': nodata, 'MX brand.test': nxdomain }],
    ['no answer is conclusive', { 'TXT brand.test': timeout, 'MX brand.test': timeout }],
  ])('says the domain exists when %s, asking no parent', async (_name, table) => {
    const resolver = makeFakeResolver(table);

    const result = await checkDomainExistence('brand.test', resolver);

    expect(result).toEqual({ exists: true });
    expect(resolver.asked.filter((q) => q.startsWith('SOA'))).toEqual([]);
  });
});
