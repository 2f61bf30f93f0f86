/**
 * webscan against small Node apps on loopback, for what nginx and apache2 alone cannot show: the
 * debug page, the two safe active checks, cookie flag combinations, a private address, PUT/DELETE
 * in Allow, a vulnerable library through an OSV-compatible service; and the bad input of the
 * issue: a soft-404 site, a rate limiter, a hostile site, a target that redirects away.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedTcpPort } from '../../../test/helpers/closed-port.ts';
import type { EngineReport } from '../../../lib/report.ts';
import { startApp, startHostile, startOsv, startRateLimited, startSoft404, type NodeApp } from './helpers/node-apps.ts';
import { failed, runWebscan, statuses } from './helpers/run.ts';
import { expectPassesSayWhy } from '../../../test/helpers/pass-details.ts';

const PROBE_RULES = ['web.exposure.vcs', 'web.exposure.env_file', 'web.exposure.backup_or_config', 'web.exposure.status_page'];

describe('webscan on Node apps', () => {
  let app: NodeApp;
  let osv: NodeApp;
  let soft404: NodeApp;
  let limited: NodeApp;
  let other: NodeApp;
  let hostile: NodeApp;
  let report: EngineReport;

  beforeAll(async () => {
    [app, osv, soft404, limited, other] = await Promise.all([startApp(), startOsv(), startSoft404(), startRateLimited(1), startSoft404()]);
    hostile = await startHostile(other.url);
    const run = await runWebscan(app.url, { rate: 20, active: true }, { WEBSCAN_OSV_URL: osv.url });
    expect(run.code, run.stderr).toBe(0);
    report = run.report!;
  });
  afterAll(async () => {
    await Promise.all([app, osv, soft404, limited, other, hostile].map((server) => server?.close()));
  });

  const keys = (rule: string, of = report): string[] =>
    of.findings
      .filter((finding) => finding.rule_id === rule)
      .map((finding) => finding.fingerprint_key)
      .sort();

  it('finds the debug page, cookies, the private address, PUT/DELETE, the library and the active checks', () => {
    expect(report.status).toBe('ok');
    expect(failed(report)).toEqual([
      'web.cookie.no_httponly',
      'web.cookie.no_samesite',
      'web.disclosure.debug_error',
      'web.disclosure.private_ip',
      'web.headers.clickjacking',
      'web.headers.csp_missing',
      'web.headers.nosniff_missing',
      'web.headers.referrer_policy_missing',
      'web.js.vulnerable_library',
      'web.methods.unsafe_allowed',
      'web.redirect.open',
      'web.sri.missing',
      'web.transport.http_only',
      'web.xss.reflected_marker',
    ]);
    // Only the session-like cookie without HttpOnly; SameSite missing, and None without Secure.
    expect(keys('web.cookie.no_httponly')).toEqual(['sid']);
    expect(keys('web.cookie.no_samesite')).toEqual(['auth_token', 'sid']);
    expect(keys('web.disclosure.debug_error')).toEqual(['Node.js stack trace /debug']);
    expect(keys('web.disclosure.private_ip')).toEqual(['10.20.30.40']);
    expect(keys('web.methods.unsafe_allowed')).toEqual(['/api/items PUT,DELETE']);
    // The open redirect and the reflection, not their safe twins.
    expect(keys('web.redirect.open')).toEqual(['/go?next']);
    expect(keys('web.xss.reflected_marker')).toEqual(['/search?q']);
    const [library] = report.findings.filter((finding) => finding.rule_id === 'web.js.vulnerable_library');
    expect(library).toMatchObject({ severity: 'medium', fingerprint_key: 'jquery@1.8.3 GHSA-gxr4-xjj5-5px2' });
    expect(library.evidence).toMatchObject({ library: 'jquery', version: '1.8.3', source: 'banner' });
    expect(keys('web.sri.missing')).toEqual(['https://cdn.example.com/lodash-4.17.4.min.js']);
    // lodash 4.17.4 was looked up too (from its file name) and has no record in this OSV.
    expect(report.checks.find((check) => check.id === 'web.js.vulnerable_library')!.detail).toBe('1 finding');
    expectPassesSayWhy(report.checks);
  });

  it('never follows the redirect it provokes and sends no method but GET, HEAD, OPTIONS and TRACE', () => {
    const fromWebscan = app.arrivals.filter((arrival) => arrival.userAgent.startsWith('webscan/'));
    expect([...new Set(fromWebscan.map((arrival) => arrival.method))].sort()).toEqual(['GET', 'OPTIONS', 'TRACE']);
    // The marker is the only payload: nothing that would execute anywhere.
    const queries = fromWebscan.map((arrival) => decodeURIComponent(new URL(arrival.url, app.url).search));
    expect(queries.filter((query) => /select |union |\.\.\/|\$\{|<script|sleep\(/i.test(query))).toEqual([]);
  });

  it('makes the library check an error, not a pass, when OSV cannot answer', async () => {
    const run = await runWebscan(app.url, { rate: 20, max_pages: 12 }, { WEBSCAN_OSV_URL: `http://127.0.0.1:${await closedTcpPort()}/` });
    expect(statuses(run.report!)['web.js.vulnerable_library']).toBe('error');
    expect(run.report!.status).toBe('partial');
    expect(
      run
        .report!.errors.filter((error) => error.check === 'web.js.vulnerable_library')
        .map((error) => error.message.replace(/failed: .*/, 'failed'))
        .sort(),
    ).toEqual(['OSV lookup of jquery@1.8.3 failed', 'OSV lookup of lodash@4.17.4 failed']);
  });

  it('suppresses an ignored rule on matching paths and says what it suppressed', async () => {
    const run = await runWebscan(
      app.url,
      { rate: 20, max_pages: 12, ignore: [{ rule_id: 'web.disclosure.debug_error', path: '/debug', reason: 'staging only' }] },
      { WEBSCAN_OSV_URL: osv.url },
    );
    const check = run.report!.checks.find((entry) => entry.id === 'web.disclosure.debug_error')!;
    expect(check.status).toBe('pass');
    expect(check.detail).toContain('suppressed by ignore: 1 on /debug (staging only)');
  });

  it('counts no exposure on a site that answers 200 with one page to everything', async () => {
    const run = await runWebscan(soft404.url, { rate: 20, max_pages: 5 });
    const status = statuses(run.report!);
    for (const rule of PROBE_RULES) expect([rule, status[rule]]).toEqual([rule, 'pass']);
    expect(run.report!.findings.filter((finding) => finding.rule_id.startsWith('web.exposure.'))).toEqual([]);
  });

  it('reports errors, never passes, for what a rate limiter answering 429 prevented', async () => {
    const run = await runWebscan(limited.url, { rate: 20 });
    const status = statuses(run.report!);
    expect(run.report!.status).toBe('partial');
    // Only the first request (GET / of the http_only check) was answered: everything after it is an error.
    for (const rule of [
      ...PROBE_RULES,
      'web.headers.csp_missing',
      'web.disclosure.debug_error',
      'web.exposure.directory_listing',
      'web.methods.trace',
    ])
      expect([rule, status[rule]]).toEqual([rule, 'error']);
    expect(Object.values(status).filter((value) => value === 'pass')).toEqual([]);
    expect(run.report!.errors.some((error) => /HTTP 429/.test(error.message))).toBe(true);
  });

  it('ends a hostile site by its deadline, under its memory bound, with errors where it could not look', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const run = await runWebscan(hostile.url, { rate: 20, max_pages: 2000 }, { WEBSCAN_REQUEST_TIMEOUT_MS: '2000' }, 10);
    const elapsed = performance.now() - started;
    expect(run.code).toBe(0);
    expect(elapsed).toBeLessThan(11_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
    const { report: hostileReport } = run;
    expect(hostileReport!.status).toBe('partial');
    const messages = hostileReport!.errors.map((error) => error.message).join('\n');
    expect(messages).toMatch(/\/tarpit could not be analysed: GET \/tarpit: no complete response within 2000 ms/);
    expect(messages).toMatch(/\/huge is larger than 2097152 bytes: its body was analysed only in part/);
    // Body rules cannot pass with a page they saw only in part.
    expect(statuses(hostileReport!)['web.disclosure.debug_error']).toBe('error');
    // Neither the other origin nor the metadata address was ever asked for anything.
    expect(other.arrivals).toEqual([]);
    // The calendar's endless months are capped per path.
    expect(hostile.arrivals.filter((arrival) => arrival.url.startsWith('/cal?')).length).toBeLessThanOrEqual(10);
  }, 20_000);

  it('does not follow a target that redirects to another origin, and says so', async () => {
    const run = await runWebscan(new URL('/away', hostile.url).href, { rate: 20, max_pages: 5 });
    expect(other.arrivals).toEqual([]);
    const check = run.report!.checks.find((entry) => entry.id === 'web.headers.csp_missing')!;
    expect(check.status).toBe('error');
    expect(check.detail).toContain(`the target redirects to ${other.url}, another origin: not followed`);
  });

  it('refuses a metadata address and loopback targets when loopback is not allowed', async () => {
    expect((await runWebscan('http://169.254.169.254/latest/')).code).toBe(3);
    expect((await runWebscan(app.url, {}, { WEBSCAN_ALLOW_LOOPBACK: '0' })).code).toBe(3);
    expect((await runWebscan('ftp://example.com/')).code).toBe(2);
  });
});

describe('webscan with an http_header credential (DESIGN §16)', () => {
  const SECRET = 'k3y-7f2a9c41e8b05d63';
  const credential = (kind: string, hosts: string[]) => ({
    alias: 'shop-api',
    kind,
    secret: kind === 'http_header' ? { name: 'X-Api-Key', value: SECRET } : { token: SECRET },
    allowed_hosts: hosts,
  });
  let server: Server;
  let url: string;
  // What the site received, as it logs it: method, path, and whether the key came with it.
  const received: { method: string; path: string; key: boolean }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const key = request.headers['x-api-key'] === SECRET;
      received.push({ method: request.method ?? '', path: request.url ?? '', key });
      if (!key) {
        response.writeHead(401, { 'content-type': 'text/plain' }).end('send X-Api-Key');
        return;
      }
      const links = request.url === '/' ? '<a href="/orders">orders</a> <a href="/account">account</a>' : '<a href="/">home</a>';
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>${links}</body></html>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the header on every request to the target but TRACE, crawls what it opens, and never prints the value', async () => {
    received.length = 0;
    const run = await runWebscan(
      url,
      { credential: 'shop-api', rate: 20, max_pages: 10 },
      {},
      60,
      credential('http_header', ['127.0.0.1']),
    );

    expect(run.code).toBe(0);
    // The pages behind the key were reached: the crawl got past the 401.
    expect(received.filter((entry) => entry.key).map((entry) => entry.path)).toEqual(expect.arrayContaining(['/', '/orders', '/account']));
    // Every request carried it, but the TRACE of the methods check, whose answer echoes the request.
    expect(received.filter((entry) => !entry.key).map((entry) => entry.method)).toEqual(
      received.filter((entry) => entry.method === 'TRACE').map(() => 'TRACE'),
    );
    expect(received.some((entry) => entry.method === 'TRACE')).toBe(true);
    expect(JSON.stringify(run.report)).not.toContain(SECRET);
    expect(run.stderr).not.toContain(SECRET);
  });

  it('sends nothing when the credential does not allow the target host, or is not an http_header', async () => {
    received.length = 0;
    const elsewhere = await runWebscan(url, { credential: 'shop-api' }, {}, 60, credential('http_header', ['shop.example.com']));
    const wrongKind = await runWebscan(url, { credential: 'shop-api' }, {}, 60, credential('llm_api_key', ['127.0.0.1']));
    const missing = await runWebscan(url, { credential: 'shop-api' });

    expect([elsewhere.code, wrongKind.code, missing.code]).toEqual([3, 3, 3]);
    expect(elsewhere.stderr).toContain('credential shop-api is not allowed for 127.0.0.1: nothing was sent');
    expect(wrongKind.stderr).toContain('credential shop-api is a llm_api_key, not an http_header');
    expect(missing.stderr).toContain('the scope names credential shop-api, but no --credential-file was given');
    expect(received).toEqual([]);
    expect(elsewhere.stderr + wrongKind.stderr).not.toContain(SECRET);
  });
});
