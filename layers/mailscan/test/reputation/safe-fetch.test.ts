import { afterEach, describe, expect, it } from 'vitest';
import { blockedAddressReason } from '../../../../lib/address-policy.ts';
import { FetchError, makeSafeFetch, type HostLookup } from '../../../../lib/http/safe-fetch.ts';
import { routes, sendBody, startLoopbackServer, type LoopbackServer } from './loopback-server.ts';
import { makeRoot, makeTlsServerCert } from './x509-fixtures.ts';

const NEITHER = { allowPrivate: false, allowLoopback: false };

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(...args: Parameters<typeof startLoopbackServer>): Promise<LoopbackServer> {
  const server = await startLoopbackServer(...args);
  servers.push(server);
  return server;
}

function fixedLookup(table: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw new FetchError('host_not_found', hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(lookup, { calls });
}

async function fetchError(promise: Promise<unknown>): Promise<FetchError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}

const base = { timeoutMs: 2_000, maxBytes: 1_024 };

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.31.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (embedded 127.0.0.1)'],
    ['::ffff:a00:1', 'private (embedded 10.0.0.1)'],
    ['64:ff9b::a9fe:a9fe', 'link-local (embedded 169.254.169.254)'],
    ['2002:c0a8:101::1', 'private (embedded 192.168.1.1)'],
    ['::a00:1', 'private (embedded 10.0.0.1)'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['2001:db8::5', 'documentation'],
    ['64:ff9b:1::8.8.8.8', 'local NAT64'],
    ['127.1', 'not an IP address'],
    ['0x7f.0.0.1', 'not an IP address'],
  ])('refuses %s as %s', (ip, reason) => {
    expect(blockedAddressReason(ip, NEITHER)).toBe(reason);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (ip) => {
    expect(blockedAddressReason(ip, NEITHER)).toBeNull();
  });

  it('allows private addresses with allowPrivate and loopback only with allowLoopback, never link-local', () => {
    const privateOnly = { allowPrivate: true, allowLoopback: false };
    expect(blockedAddressReason('10.0.0.1', privateOnly)).toBeNull();
    // A deployment that scans private networks must not reach its own host (Lambda's runtime API on 127.0.0.1:9001).
    expect(blockedAddressReason('127.0.0.1', privateOnly)).toBe('loopback');
    expect(blockedAddressReason('::1', privateOnly)).toBe('loopback');
    const loopbackOnly = { allowPrivate: false, allowLoopback: true };
    expect(blockedAddressReason('127.0.0.1', loopbackOnly)).toBeNull();
    expect(blockedAddressReason('::1', loopbackOnly)).toBeNull();
    expect(blockedAddressReason('10.0.0.1', loopbackOnly)).toBe('private');
    const both = { allowPrivate: true, allowLoopback: true };
    expect(blockedAddressReason('169.254.169.254', both)).toBe('link-local');
    expect(blockedAddressReason('::ffff:169.254.169.254', both)).toBe('link-local (embedded 169.254.169.254)');
    expect(blockedAddressReason('fd00:ec2::254', both)).toBe('cloud metadata');
  });
});

describe('makeSafeFetch', () => {
  it('returns status, headers and body from a loopback server when loopback is allowed', async () => {
    const server = await serve(sendBody('hello', 'text/plain'));
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, allowLoopback: true });

    const response = await fetch(`${server.origin}/x`, { headers: { 'x-test': '1' } });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain');
    expect(new TextDecoder().decode(response.body)).toBe('hello');
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/x', headers: { 'x-test': '1' } });
  });

  it('refuses a loopback server when only private networks are allowed, and sends it nothing', async () => {
    const server = await serve(sendBody('hello', 'text/plain'));
    // Before: allowPrivate admitted loopback too, so a deployment scanning private networks fetched from its own host.
    const fetch = makeSafeFetch({ ...base, allowPrivate: true });

    const error = await fetchError(fetch(`${server.origin}/x`));

    expect(error.code).toBe('address_blocked');
    expect(error.message).toContain('loopback');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses plain http without allowPrivate and sends nothing', async () => {
    const server = await serve(sendBody('hello'));
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, lookup: fixedLookup({ 'logo.test': ['93.184.215.14'] }) });

    const error = await fetchError(fetch(`http://logo.test:${server.port}/`));

    expect(error.code).toBe('scheme_not_allowed');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/',
    'https://[fc00::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
  ])('refuses the address literal in %s', async (url) => {
    const fetch = makeSafeFetch({ ...base, allowPrivate: false });

    const error = await fetchError(fetch(url));

    expect(error.code).toBe('address_blocked');
  });

  it('refuses a host when any of its addresses is private', async () => {
    const lookup = fixedLookup({ 'mixed.test': ['93.184.215.14', '10.0.0.5'], 'v6.test': ['fc00::5'] });
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, lookup });

    const mixed = await fetchError(fetch('https://mixed.test/logo.svg'));
    const v6 = await fetchError(fetch('https://v6.test/logo.svg'));

    expect(mixed.code).toBe('address_blocked');
    expect(mixed.message).toContain('10.0.0.5');
    expect(v6.code).toBe('address_blocked');
  });

  it('connects to the address it vetted without resolving the host again', async () => {
    const server = await serve(sendBody('pinned'));
    const lookup = fixedLookup({ 'vendor.test': ['127.0.0.1'] });
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, allowLoopback: true, lookup });

    const response = await fetch(`http://vendor.test:${server.port}/v1`);

    expect(new TextDecoder().decode(response.body)).toBe('pinned');
    expect(lookup.calls).toEqual(['vendor.test']);
    expect(server.requests[0].headers.host).toBe(`vendor.test:${server.port}`);
  });

  it('speaks https to a host name, verifying the certificate against the given CA', async () => {
    const root = await makeRoot('CN=Test TLS Root');
    const server = await serve(sendBody('secure'), await makeTlsServerCert(root, ['logo.brand.test']));
    const fetch = makeSafeFetch({
      ...base,
      allowPrivate: false,
      allowLoopback: true,
      lookup: fixedLookup({ 'logo.brand.test': ['127.0.0.1'] }),
      tlsCa: [root.pem],
    });

    const response = await fetch(`https://logo.brand.test:${server.port}/logo.svg`);

    expect(new TextDecoder().decode(response.body)).toBe('secure');
  });

  it('refuses a body larger than the cap, declared or streamed', async () => {
    const big = 'x'.repeat(4_096);
    const server = await serve(
      routes({
        '/declared': sendBody(big),
        '/chunked': (_req, res) => {
          res.writeHead(200);
          res.write(big.slice(0, 2_048));
          res.end(big.slice(2_048));
        },
      }),
    );
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, allowLoopback: true });

    const declared = await fetchError(fetch(`${server.origin}/declared`));
    const chunked = await fetchError(fetch(`${server.origin}/chunked`));
    const raised = await fetch(`${server.origin}/declared`, { maxBytes: 8_192 });

    expect(declared.code).toBe('too_large');
    expect(chunked.code).toBe('too_large');
    expect(raised.body).toHaveLength(4_096);
  });

  it('gives up with a timeout when the server never answers', async () => {
    const server = await serve(() => undefined);
    const fetch = makeSafeFetch({ ...base, timeoutMs: 100, allowPrivate: false, allowLoopback: true });

    const error = await fetchError(fetch(`${server.origin}/slow`));

    expect(error.code).toBe('timeout');
  });

  it('applies a per-call timeout to a body that stalls after the headers', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const fetch = makeSafeFetch({ ...base, timeoutMs: 10_000, allowPrivate: false, allowLoopback: true });

    const error = await fetchError(fetch(`${server.origin}/stall`, { timeoutMs: 100 }));

    expect(error.code).toBe('timeout');
  });

  it('follows up to three redirects and refuses the fourth', async () => {
    const hop = (to: string) => (_req: unknown, res: { writeHead: (s: number, h: Record<string, string>) => { end: () => void } }) =>
      res.writeHead(302, { location: to }).end();
    const server = await serve(
      routes({ '/1': hop('/2'), '/2': hop('/3'), '/3': hop('/final'), '/4': hop('/1'), '/final': sendBody('done') }),
    );
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, allowLoopback: true });

    const followed = await fetch(`${server.origin}/1`);
    const tooMany = await fetchError(fetch(`${server.origin}/4`));

    expect(new TextDecoder().decode(followed.body)).toBe('done');
    expect(tooMany.code).toBe('too_many_redirects');
  });

  it('re-vets every redirect target, refusing metadata addresses even with allowLoopback', async () => {
    const server = await serve(
      routes({
        '/literal': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
        '/named': (_req, res) => res.writeHead(301, { location: 'http://metadata.test/' }).end(),
        '/scheme': (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
      }),
    );
    const fetch = makeSafeFetch({
      ...base,
      allowPrivate: false,
      allowLoopback: true,
      lookup: fixedLookup({ 'metadata.test': ['169.254.169.254'] }),
    });

    const literal = await fetchError(fetch(`${server.origin}/literal`));
    const named = await fetchError(fetch(`${server.origin}/named`));
    const scheme = await fetchError(fetch(`${server.origin}/scheme`));

    expect(literal.code).toBe('address_blocked');
    expect(named.code).toBe('address_blocked');
    expect(scheme.code).toBe('scheme_not_allowed');
  });

  it('drops caller headers when a redirect leaves the origin', async () => {
    const target = await serve(sendBody('elsewhere'));
    const start = await serve(
      routes({
        '/same': (_req, res) => res.writeHead(302, { location: '/landing' }).end(),
        '/landing': sendBody('here'),
        '/away': (_req, res) => res.writeHead(302, { location: `${target.origin}/` }).end(),
      }),
    );
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, allowLoopback: true });

    await fetch(`${start.origin}/same`, { headers: { 'x-api-key': 'secret' } });
    await fetch(`${start.origin}/away`, { headers: { 'x-api-key': 'secret' } });

    expect(start.requests.find((r) => r.url === '/landing')!.headers['x-api-key']).toBe('secret');
    expect(target.requests[0].headers['x-api-key']).toBeUndefined();
  });

  it('sends a bound credential only to its origins, across redirects, and drops it on a redirect elsewhere', async () => {
    const api = await serve(
      routes({
        '/start': (_req, res) => res.writeHead(302, { location: `${other.origin}/bounce` }).end(),
        '/back': sendBody('back'),
      }),
    );
    const other = await serve(routes({ '/bounce': (_req, res) => res.writeHead(302, { location: `${api.origin}/back` }).end() }));
    const unbound = await serve(sendBody('unbound'));
    const fetch = makeSafeFetch({ ...base, allowPrivate: false, allowLoopback: true, userAgent: 'test-engine' });
    const credential = { headers: { authorization: 'Bearer tenant-token' }, origins: [`${api.origin}/`] };

    await fetch(`${api.origin}/start`, { credential });
    await fetch(`${unbound.origin}/`, { credential });

    expect(api.requests.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/start', 'Bearer tenant-token'],
      ['/back', 'Bearer tenant-token'],
    ]);
    expect(other.requests[0].headers.authorization).toBeUndefined();
    expect(unbound.requests[0].headers.authorization).toBeUndefined();
    expect(api.requests[0].headers['user-agent']).toBe('test-engine');
  });
});
