import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateVmc, type VmcInput } from '../../src/reputation/vmc.ts';
import { NOW } from './test-context.ts';
import { makeIntermediate, makeLeaf, makeRoot, otherSvgLogo, svgLogo, type Issuer, type LeafOptions } from './x509-fixtures.ts';

let root: Issuer;
let intermediate: Issuer;
let otherRoot: Issuer;

beforeAll(async () => {
  root = await makeRoot();
  intermediate = await makeIntermediate(root);
  otherRoot = await makeRoot('CN=Unknown Root');
});

function vmcInput(pem: string, overrides: Partial<VmcInput> = {}): VmcInput {
  return { pem, svg: svgLogo, domain: 'brand.test', roots: [root.pem], now: NOW, ...overrides };
}

describe('validateVmc', () => {
  it('accepts a leaf chained through an intermediate to a trusted root with a matching logo', async () => {
    const pem = (await makeLeaf(intermediate)) + intermediate.pem;

    const result = await validateVmc(vmcInput(pem));

    expect(result).toMatchObject({ reasons: [], chain: 'trusted', logo: 'matches', certificate: { san: ['brand.test'] } });
  });

  it('accepts a leaf issued directly by the root', async () => {
    const result = await validateVmc(vmcInput(await makeLeaf(root)));

    expect(result.reasons).toEqual([]);
  });

  it.each<[string, LeafOptions]>([
    ['expired', { notBefore: new Date('2024-01-01T00:00:00Z'), notAfter: new Date('2025-01-01T00:00:00Z') }],
    ['not_yet_valid', { notBefore: new Date('2025-09-01T00:00:00Z'), notAfter: new Date('2026-09-01T00:00:00Z') }],
    ['eku_missing', { eku: ['1.3.6.1.5.5.7.3.1'] }],
    ['eku_missing', { eku: null }],
    ['domain_mismatch', { domains: ['other.test'] }],
    ['domain_mismatch', { domains: ['*.brand.test'] }],
    ['logotype_missing', { logo: null }],
    ['logo_hash_mismatch', { logo: otherSvgLogo }],
  ])('reports %s', async (reason, options) => {
    const pem = (await makeLeaf(intermediate, options)) + intermediate.pem;

    const result = await validateVmc(vmcInput(pem));

    expect(result.reasons).toEqual([reason]);
    expect(result.chain).toBe('trusted');
  });

  it('reports chain_untrusted for a chain to an unknown root', async () => {
    const result = await validateVmc(vmcInput(await makeLeaf(otherRoot)));

    expect(result.reasons).toEqual(['chain_untrusted']);
    expect(result.chain).toBe('untrusted');
  });

  it('reports chain_untrusted when the intermediate is not served', async () => {
    const result = await validateVmc(vmcInput(await makeLeaf(intermediate)));

    expect(result.reasons).toEqual(['chain_untrusted']);
  });

  it('lists every failure, most fundamental first', async () => {
    const pem = await makeLeaf(otherRoot, { eku: null, domains: ['other.test'], notAfter: new Date('2025-02-01T00:00:00Z') });

    const result = await validateVmc(vmcInput(pem));

    expect(result.reasons).toEqual(['chain_untrusted', 'expired', 'eku_missing', 'domain_mismatch']);
  });

  it('reports parse_error for a body that is not a certificate', async () => {
    const result = await validateVmc(vmcInput('<html>not found</html>'));

    expect(result.reasons).toEqual(['parse_error']);
  });

  it('leaves the chain unchecked, without a reason, when no roots are configured', async () => {
    const result = await validateVmc(vmcInput((await makeLeaf(intermediate)) + intermediate.pem, { roots: [] }));

    expect(result).toMatchObject({ reasons: [], chain: 'not_checked' });
  });

  it('accepts a SAN naming the organizational domain for a subdomain', async () => {
    const result = await validateVmc(vmcInput((await makeLeaf(intermediate)) + intermediate.pem, { domain: 'news.brand.test' }));

    expect(result.reasons).toEqual([]);
  });

  it('matches the logo by the embedded copy when the hash covers the compressed bytes', async () => {
    const pem = (await makeLeaf(intermediate, { logotypeForm: 'hash-of-gzip' })) + intermediate.pem;

    const result = await validateVmc(vmcInput(pem));

    expect(result.logo).toBe('matches');
  });

  it('matches the logo by hash alone when no copy is embedded, and refuses another logo', async () => {
    const pem = (await makeLeaf(intermediate, { logotypeForm: 'hash-only' })) + intermediate.pem;

    const same = await validateVmc(vmcInput(pem));
    const other = await validateVmc(vmcInput(pem, { svg: otherSvgLogo }));

    expect(same.logo).toBe('matches');
    expect(other.reasons).toEqual(['logo_hash_mismatch']);
  });

  it('compares a gzip-served SVG by its content', async () => {
    const pem = (await makeLeaf(intermediate)) + intermediate.pem;

    const result = await validateVmc(vmcInput(pem, { svg: new Uint8Array(gzipSync(svgLogo)) }));

    expect(result.logo).toBe('matches');
  });

  it('leaves the logo uncompared when no SVG was fetched', async () => {
    const result = await validateVmc(vmcInput((await makeLeaf(intermediate)) + intermediate.pem, { svg: null }));

    expect(result).toMatchObject({ reasons: [], logo: 'not_compared' });
  });
});
