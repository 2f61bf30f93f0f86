import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSafeFetch } from '../../../../lib/http/safe-fetch.ts';
import { checkBimi } from '../../src/reputation/bimi.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';
import { routes, sendBody, startLoopbackServer, type LoopbackServer } from './loopback-server.ts';
import { context, found, input, timeout } from './test-context.ts';
import { makeIntermediate, makeLeaf, makeRoot, makeTlsServerCert, otherSvgLogo, svgLogo, type Issuer } from './x509-fixtures.ts';

let root: Issuer;
let tlsRoot: Issuer;
let server: LoopbackServer;
let origin: string;

beforeAll(async () => {
  root = await makeRoot();
  tlsRoot = await makeRoot('CN=Test TLS Root');
  const intermediate = await makeIntermediate(root);
  const chain = async (options: Parameters<typeof makeLeaf>[1]) => (await makeLeaf(intermediate, options)) + intermediate.pem;
  const pem = (text: string) => sendBody(text, 'application/x-pem-file');
  server = await startLoopbackServer(
    routes({
      '/logo.svg': sendBody(svgLogo, 'image/svg+xml'),
      '/other.svg': sendBody(otherSvgLogo, 'image/svg+xml'),
      '/vmc/valid.pem': pem(await chain({})),
      '/vmc/expired.pem': pem(await chain({ notBefore: new Date('2024-01-01T00:00:00Z'), notAfter: new Date('2025-01-01T00:00:00Z') })),
      '/vmc/wrong-eku.pem': pem(await chain({ eku: ['1.3.6.1.5.5.7.3.1'] })),
      '/vmc/other-domain.pem': pem(await chain({ domains: ['other.test'] })),
      '/vmc/untrusted.pem': pem(await makeLeaf(await makeRoot('CN=Unknown Root'))),
      '/vmc/hang.pem': () => undefined,
    }),
    await makeTlsServerCert(tlsRoot, ['bimi.brand.test']),
  );
  origin = `https://bimi.brand.test:${server.port}`;
});

afterAll(async () => {
  await server.close();
});

function bimiContext(
  record: string | null,
  options: { roots?: string[] | Error; allowPrivate?: boolean; address?: string; name?: string } = {},
) {
  const fetch = makeSafeFetch({
    timeoutMs: 300,
    maxBytes: 64 * 1024,
    allowPrivate: options.allowPrivate ?? false,
    allowLoopback: options.allowPrivate ?? true,
    tlsCa: [tlsRoot.pem],
    lookup: async () => [{ address: options.address ?? '127.0.0.1', family: 4 }],
  });
  const resolver = makeFakeResolver(record === null ? {} : { [`TXT ${options.name ?? 'default._bimi.brand.test'}`]: found(record) });
  return {
    resolver,
    ctx: context({
      resolver,
      fetch,
      config: {
        vmcRoots: () => {
          if (options.roots instanceof Error) throw options.roots;
          return options.roots ?? [root.pem];
        },
      },
    }),
  };
}

const record = (vmc: string, logo = 'logo.svg') => `v=BIMI1; l=${origin}/${logo}; a=${origin}/vmc/${vmc}`;

describe('checkBimi', () => {
  it('validates a published VMC and logo without a finding', async () => {
    const { ctx } = bimiContext(record('valid.pem'));

    const result = await checkBimi(input(), ctx);

    expect(result.status).toBe('ok');
    expect(result.findings).toEqual([]);
    expect(result.data).toMatchObject({
      state: 'found',
      record_name: 'default._bimi.brand.test',
      svg: { status: 'fetched', tiny_ps: true },
      vmc: { status: 'valid', chain: 'trusted', logo: 'matches' },
    });
  });

  it.each([
    ['expired.pem', 'logo.svg', 'expired'],
    ['wrong-eku.pem', 'logo.svg', 'eku_missing'],
    ['other-domain.pem', 'logo.svg', 'domain_mismatch'],
    ['untrusted.pem', 'logo.svg', 'chain_untrusted'],
    ['valid.pem', 'other.svg', 'logo_hash_mismatch'],
    ['missing.pem', 'logo.svg', 'fetch_failed'],
  ])('reports vmc_invalid for %s with %s as %s', async (vmc, logo, reason) => {
    const { ctx } = bimiContext(record(vmc, logo));

    const result = await checkBimi(input(), ctx);

    expect(result.status).toBe('ok');
    expect(result.findings).toEqual([
      expect.objectContaining({ rule_id: 'mailscan.bimi.vmc_invalid', severity: 'high', evidence: expect.objectContaining({ reason }) }),
    ]);
  });

  it('reports a VMC hosted at a private address as fetch_failed without contacting it', async () => {
    const { ctx } = bimiContext(record('valid.pem'), { allowPrivate: false, address: '10.0.0.7' });
    const before = server.requests.length;

    const result = await checkBimi(input(), ctx);

    expect(result.findings[0].evidence).toMatchObject({ reason: 'fetch_failed' });
    expect(server.requests.length).toBe(before);
  });

  it('treats a VMC fetch timeout as an error, not a finding', async () => {
    const { ctx } = bimiContext(record('hang.pem'));

    const result = await checkBimi(input(), ctx);

    expect(result.status).toBe('error');
    expect(result.findings).toEqual([]);
    expect(result.data.vmc).toMatchObject({ status: 'error' });
    expect(result.errors).toEqual([{ surface: 'reputation', check: 'bimi', message: expect.stringContaining('timeout') }]);
  });

  it('reports the VMC unverified, as an error, when no trust roots are configured', async () => {
    const { ctx } = bimiContext(record('valid.pem'), { roots: [] });

    const result = await checkBimi(input(), ctx);

    expect(result.status).toBe('error');
    expect(result.findings).toEqual([]);
    expect(result.data.vmc).toMatchObject({ status: 'unverified', chain: 'not_checked' });
    expect(result.errors[0].message).toContain('no VMC trust roots');
  });

  it('makes the VMC an error, judging nothing, when the trust roots cannot be read at validation', async () => {
    // The bundled roots are read only when a VMC is validated: a layer whose roots file went bad is an error, never a verdict.
    const { ctx } = bimiContext(record('expired.pem'), { roots: new Error('/opt/assets/vmc-roots/x.pem holds no PEM certificate') });

    const result = await checkBimi(input(), ctx);

    expect(result.status).toBe('error');
    expect(result.findings).toEqual([]);
    expect(result.data.vmc).toEqual({ status: 'error', error: expect.stringContaining('holds no PEM certificate') });
    expect(result.errors).toEqual([
      { surface: 'reputation', check: 'bimi', message: expect.stringContaining('the VMC trust roots could not be read') },
    ]);
  });

  it('still reports a definite failure when no trust roots are configured', async () => {
    const { ctx } = bimiContext(record('expired.pem'), { roots: [] });

    const result = await checkBimi(input(), ctx);

    expect(result.findings[0].evidence).toMatchObject({ reason: 'expired' });
  });

  it('reports no record as absent and fetches nothing', async () => {
    const { ctx, resolver } = bimiContext(null);

    const result = await checkBimi(input(), ctx);

    expect(result).toMatchObject({ status: 'ok', data: { state: 'absent' }, findings: [], errors: [] });
    expect(resolver.asked).toEqual(['TXT default._bimi.brand.test']);
  });

  it('falls back to the organizational domain', async () => {
    const { ctx, resolver } = bimiContext(record('valid.pem'));

    const result = await checkBimi(input({ domain: 'news.brand.test' }), ctx);

    expect(resolver.asked).toEqual(['TXT default._bimi.news.brand.test', 'TXT default._bimi.brand.test']);
    expect(result.data.vmc).toMatchObject({ status: 'valid' });
  });

  it('treats an unknown DNS answer as an error, not as no record', async () => {
    const { ctx } = bimiContext(null);
    const resolver = makeFakeResolver({ 'TXT default._bimi.brand.test': timeout });

    const result = await checkBimi(input(), { ...ctx, resolver });

    expect(result.status).toBe('error');
    expect(result.data.state).toBe('unknown');
    expect(result.findings).toEqual([]);
  });

  it('reports a logo-only record without a VMC and without a finding', async () => {
    const { ctx } = bimiContext(`v=BIMI1; l=${origin}/logo.svg;`);

    const result = await checkBimi(input(), ctx);

    expect(result.findings).toEqual([]);
    expect(result.data).toMatchObject({ svg: { status: 'fetched' }, vmc: { status: 'not_published' } });
  });

  it('notes URLs that are not https', async () => {
    const { ctx } = bimiContext('v=BIMI1; l=http://bimi.brand.test/logo.svg; a=');

    const result = await checkBimi(input(), ctx);

    expect(result.data.problems).toEqual(['http://bimi.brand.test/logo.svg is not an https: URL (BIMI requires HTTPS)']);
  });
});
