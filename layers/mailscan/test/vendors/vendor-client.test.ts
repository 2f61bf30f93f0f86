import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { makeSafeFetch } from '../../../../lib/http/safe-fetch.ts';
import { endpointUrl, openVendor, type VendorClient } from '../../src/vendors/vendor-client.ts';
import type { VendorDefinition } from '../../src/vendors/vendor.ts';
import { vendorConfigFromEnv } from '../../src/vendors/vendor-config.ts';
import { sendJson, startLoopbackServer, type Handler, type LoopbackServer } from '../reputation/loopback-server.ts';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function vendor(handler: Handler): Promise<LoopbackServer> {
  const server = await startLoopbackServer(handler);
  servers.push(server);
  return server;
}

const fetch = makeSafeFetch({ timeoutMs: 2_000, maxBytes: 64 * 1024, allowPrivate: false, allowLoopback: true });
const use = { fetch, surface: 'leak', check: 'breach' };
const searchVendor: VendorDefinition = {
  name: 'dehashed',
  key: 'required',
  keyHeaders: (key) => ({ 'dehashed-api-key': key }),
  defaultEndpoint: '',
  defaultTimeoutMs: 1_000,
};
const bearerVendor: VendorDefinition = {
  name: 'codesearch',
  key: 'required',
  keyHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  defaultEndpoint: '',
  defaultTimeoutMs: 1_000,
};
const optionalVendor: VendorDefinition = {
  name: 'breach',
  key: 'optional',
  keyHeaders: (key) => ({ 'hibp-api-key': key }),
  defaultEndpoint: '',
  defaultTimeoutMs: 1_000,
};
const anySchema = z.object({ total: z.number() });

function client(definition: VendorDefinition, endpoint: string, key?: string, timeoutMs = 1_000): VendorClient {
  const opened = openVendor(definition, { endpoint, timeoutMs, ...(key !== undefined ? { key } : {}) }, use);
  if (!opened.ok) throw new Error(`expected a client, got ${opened.unavailable.reason}`);
  return opened.client;
}

describe('openVendor', () => {
  it('gives no client for a required-key vendor without its key, so it is never contacted', async () => {
    const server = await vendor(sendJson({ total: 1 }));

    const opened = openVendor(searchVendor, { endpoint: server.origin, timeoutMs: 1_000 }, use);

    expect(opened).toEqual({
      ok: false,
      unavailable: { status: 'skipped', reason: 'no dehashed key in this deployment (MAILSCAN_DEHASHED_KEY)', errors: [] },
    });
    expect(server.requests).toHaveLength(0);
  });

  it('is an error entry of the check when a key is set without an endpoint', () => {
    const opened = openVendor(searchVendor, { endpoint: '', key: 'k', timeoutMs: 1_000 }, use);

    expect(opened).toEqual({
      ok: false,
      unavailable: {
        status: 'error',
        reason: 'an operator key is set but no endpoint (MAILSCAN_DEHASHED_URL)',
        errors: [{ surface: 'leak', check: 'breach', message: 'an operator key is set but no endpoint (MAILSCAN_DEHASHED_URL)' }],
      },
    });
  });

  it('posts JSON with the key only in its header', async () => {
    const server = await vendor(sendJson({ total: 2 }));
    const dehashed = client(searchVendor, `${server.origin}/api/`, 'dh-key');

    const answer = await dehashed.request({ path: '/v2/search', json: { query: 'domain:brand.test', page: 1 } }, anySchema);

    expect(answer).toEqual({ kind: 'ok', body: { total: 2 } });
    expect(server.requests).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/api/v2/search',
        body: '{"query":"domain:brand.test","page":1}',
        headers: expect.objectContaining({ 'dehashed-api-key': 'dh-key', 'content-type': 'application/json', accept: 'application/json' }),
      }),
    ]);
  });

  it('sends a bearer key in authorization', async () => {
    const server = await vendor(sendJson({ total: 0 }));

    await client(bearerVendor, server.origin, 'gh-token').request({ path: '/search/code?q=x' }, anySchema);

    expect(server.requests.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['GET', '/search/code?q=x', 'Bearer gh-token'],
    ]);
  });

  it('lets an optional-key vendor ask keyless questions and refuses its keyed ones without a key', async () => {
    const server = await vendor(sendJson({ total: 0 }));
    const keyless = client(optionalVendor, server.origin);

    await keyless.request({ path: '/breaches?domain=brand.test' }, anySchema);

    expect(keyless.keyed).toBe(false);
    expect(server.requests.map((r) => [r.url, r.headers['hibp-api-key']])).toEqual([['/breaches?domain=brand.test', undefined]]);
    await expect(keyless.request({ path: '/breacheddomain/brand.test', keyed: true }, anySchema)).rejects.toThrow(
      'keyed request without a key',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('reads 404 as no data and other statuses, non-JSON and wrong shapes as errors', async () => {
    const answers: Record<string, Handler> = {
      '/missing': (_req, res) => res.writeHead(404).end(),
      '/limited': (_req, res) => res.writeHead(429).end(),
      '/html': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'),
      '/shape': sendJson({ total: 'many' }),
    };
    const server = await vendor((req, res) => answers[req.url!](req, res));
    const api = client(searchVendor, server.origin, 'k');

    const results = await Promise.all(Object.keys(answers).map((path) => api.request({ path }, anySchema)));

    expect(results).toEqual([
      { kind: 'not_found' },
      { kind: 'error', message: 'HTTP 429 (rate limited)' },
      { kind: 'error', message: 'the response is not JSON' },
      { kind: 'error', message: expect.stringContaining('unexpected response shape: total:') },
    ]);
  });

  it('keeps to its timeout and size cap, and goes through the SSRF guard', async () => {
    const silent = await vendor(() => undefined);
    const huge = await vendor(sendJson({ total: 1, pad: 'x'.repeat(4096) }));
    const guarded = makeSafeFetch({ timeoutMs: 2_000, maxBytes: 64 * 1024, allowPrivate: false });

    const slow = await client(searchVendor, silent.origin, 'k', 100).request({ path: '/' }, anySchema);
    const big = await client({ ...searchVendor, maxBytes: 1024 }, huge.origin, 'k').request({ path: '/' }, anySchema);
    const opened = openVendor(searchVendor, { endpoint: 'https://127.0.0.1:1', key: 'k', timeoutMs: 1_000 }, { ...use, fetch: guarded });
    const blocked = opened.ok ? await opened.client.request({ path: '/' }, anySchema) : null;

    expect(slow).toEqual({ kind: 'error', message: expect.stringContaining('timeout') });
    expect(big).toEqual({ kind: 'error', message: expect.stringContaining('too_large') });
    expect(blocked).toEqual({ kind: 'error', message: expect.stringContaining('address_blocked') });
  });

  it('drops the key on a redirect to another origin and turns a 303 after a POST into a GET', async () => {
    const target = await vendor(sendJson({ total: 3 }));
    const origin = await vendor((_req, res) => res.writeHead(303, { location: `${target.origin}/result` }).end());

    const answer = await client(searchVendor, origin.origin, 'dh-key').request({ path: '/v2/search', json: { query: 'q' } }, anySchema);

    expect(answer).toEqual({ kind: 'ok', body: { total: 3 } });
    expect(target.requests.map((r) => [r.method, r.url, r.headers['dehashed-api-key'], r.body])).toEqual([
      ['GET', '/result', undefined, ''],
    ]);
  });

  it('repeats a POST with its body and key on a same-origin 307', async () => {
    const server = await vendor((req, res) =>
      req.url === '/old' ? res.writeHead(307, { location: '/new' }).end() : sendJson({ total: 4 })(req, res),
    );

    const answer = await client(searchVendor, server.origin, 'dh-key').request({ path: '/old', json: { query: 'q' } }, anySchema);

    expect(answer).toEqual({ kind: 'ok', body: { total: 4 } });
    expect(server.requests.map((r) => [r.method, r.url, r.headers['dehashed-api-key'], r.body])).toEqual([
      ['POST', '/old', 'dh-key', '{"query":"q"}'],
      ['POST', '/new', 'dh-key', '{"query":"q"}'],
    ]);
  });

  it('names its check in error entries and redacts the key should a vendor echo it', () => {
    const api = client(searchVendor, 'https://vendor.test', 'dh-secret-key');

    expect(api.error('brand.test: vendor said dh-secret-key is invalid')).toEqual({
      surface: 'leak',
      check: 'breach',
      message: 'brand.test: vendor said <key> is invalid',
    });
  });
});

describe('vendorConfigFromEnv', () => {
  const withDefault: VendorDefinition = { ...searchVendor, defaultEndpoint: 'https://api.dehashed.test', defaultTimeoutMs: 7_000 };

  it('takes the endpoint from MAILSCAN_<NAME>_URL, then the file, then the default, and the key only from the environment', () => {
    expect(vendorConfigFromEnv(withDefault, {})).toEqual({ ok: true, config: { endpoint: 'https://api.dehashed.test', timeoutMs: 7_000 } });
    expect(vendorConfigFromEnv(withDefault, { MAILSCAN_DEHASHED_KEY: ' k ' }, { endpoint: 'https://file.test', timeout_ms: 300 })).toEqual({
      ok: true,
      config: { endpoint: 'https://file.test', timeoutMs: 300, key: 'k' },
    });
    expect(vendorConfigFromEnv(withDefault, { MAILSCAN_DEHASHED_URL: 'http://env.test/' }, { endpoint: 'https://file.test' })).toEqual({
      ok: true,
      config: { endpoint: 'http://env.test/', timeoutMs: 7_000 },
    });
  });

  it('refuses an endpoint that is not an http(s) URL, naming the variable', () => {
    expect(vendorConfigFromEnv(withDefault, { MAILSCAN_DEHASHED_URL: 'ftp://x', MAILSCAN_DEHASHED_KEY: 'secret' })).toEqual({
      ok: false,
      message: 'MAILSCAN_DEHASHED_URL must be an http(s) URL',
    });
  });

  it('joins the path under an endpoint with a path prefix', () => {
    expect(endpointUrl('https://proxy.test/vt/', '/api/v3/domains/x')).toBe('https://proxy.test/vt/api/v3/domains/x');
    expect(endpointUrl('https://proxy.test', 'v1/score')).toBe('https://proxy.test/v1/score');
  });
});
