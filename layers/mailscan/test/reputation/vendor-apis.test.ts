import { afterEach, describe, expect, it } from 'vitest';
import { makeSafeFetch } from '../../../../lib/http/safe-fetch.ts';
import { checkSenderScore } from '../../src/reputation/sender-score.ts';
import { checkThreatIntel } from '../../src/reputation/threat-intel.ts';
import { routes, sendJson, startLoopbackServer, type Handler, type LoopbackServer } from './loopback-server.ts';
import { context, input } from './test-context.ts';

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
const mx = [
  { host: 'mx1.brand.test', preference: 10, ipv4: ['203.0.113.10', '203.0.113.11'], ipv6: ['2001:db8::10'] },
  { host: 'mx2.brand.test', preference: 20, ipv4: ['203.0.113.11'], ipv6: [] },
];

/** Scores by IP; an IP without an entry is unknown to the service (404). */
function scoreService(scores: Record<string, number | null>): Handler {
  return (req, res) => {
    const ip = new URL(req.url ?? '/', 'http://x').searchParams.get('ip') ?? '';
    if (!(ip in scores)) return void res.writeHead(404).end();
    sendJson({ ip, score: scores[ip] })(req, res);
  };
}

describe('checkSenderScore', () => {
  it('never contacts the service without a key', async () => {
    const server = await vendor(scoreService({}));
    const ctx = context({ fetch, config: { senderScore: { endpoint: server.origin, timeoutMs: 1_000 } } });

    const result = await checkSenderScore(input({ mx }), ctx);

    expect(result).toMatchObject({ status: 'skipped', findings: [], errors: [] });
    expect(server.requests).toHaveLength(0);
  });

  it('asks once per distinct MX IPv4 with the key in x-api-key', async () => {
    const server = await vendor(scoreService({ '203.0.113.10': 90, '203.0.113.11': 75 }));
    const ctx = context({ fetch, config: { senderScore: { endpoint: `${server.origin}/`, key: 'score-key', timeoutMs: 1_000 } } });

    const result = await checkSenderScore(input({ mx }), ctx);

    // Requests run concurrently, so their arrival order is not fixed.
    expect(server.requests.map((r) => [r.method, r.url, r.headers['x-api-key']]).sort()).toEqual([
      ['GET', '/v1/score?ip=203.0.113.10', 'score-key'],
      ['GET', '/v1/score?ip=203.0.113.11', 'score-key'],
    ]);
    expect(result.status).toBe('ok');
    expect(result.findings).toEqual([]);
  });

  it('fires mx_score_low for each IP scored below 50, not at 50', async () => {
    const server = await vendor(scoreService({ '203.0.113.10': 50, '203.0.113.11': 12 }));
    const ctx = context({ fetch, config: { senderScore: { endpoint: server.origin, key: 'k', timeoutMs: 1_000 } } });

    const result = await checkSenderScore(input({ mx }), ctx);

    expect(result.findings).toEqual([
      expect.objectContaining({
        rule_id: 'mailscan.reputation.mx_score_low',
        severity: 'medium',
        evidence: { ip: '203.0.113.11', hosts: ['mx1.brand.test', 'mx2.brand.test'], score: 12, threshold: 50 },
      }),
    ]);
  });

  it('reports an IP the service does not know as no data, without a finding or an error', async () => {
    const server = await vendor(scoreService({ '203.0.113.10': null }));
    const ctx = context({ fetch, config: { senderScore: { endpoint: server.origin, key: 'k', timeoutMs: 1_000 } } });

    const result = await checkSenderScore(input({ mx }), ctx);

    expect(result.status).toBe('ok');
    expect(result.data.results!.map((r) => r.status)).toEqual(['scored', 'no_data']);
  });

  it('turns a failing or malformed answer into an error for that IP, without the key in it', async () => {
    const server = await vendor(
      routes({
        '/v1/score': (req, res) => (req.url!.includes('.10') ? res.writeHead(500).end() : sendJson({ ip: 'x', score: 'high' })(req, res)),
      }),
    );
    const ctx = context({ fetch, config: { senderScore: { endpoint: server.origin, key: 'secret-key', timeoutMs: 1_000 } } });

    const result = await checkSenderScore(input({ mx }), ctx);

    expect(result.status).toBe('error');
    expect(result.findings).toEqual([]);
    expect(result.errors.map((e) => e.message)).toEqual([
      '203.0.113.10: HTTP 500',
      expect.stringContaining('203.0.113.11: unexpected response shape'),
    ]);
    expect(JSON.stringify(result)).not.toContain('secret-key');
  });

  it('is an error when a key is set without an endpoint', async () => {
    const ctx = context({ fetch, config: { senderScore: { endpoint: '', key: 'k', timeoutMs: 1_000 } } });

    const result = await checkSenderScore(input({ mx }), ctx);

    expect(result.status).toBe('error');
    expect(result.errors[0].message).toContain('MAILSCAN_SENDERSCORE_URL');
  });
});

function domainReport(malicious: number, suspicious: number, reputation?: number) {
  return {
    data: {
      id: 'brand.test',
      type: 'domain',
      attributes: {
        last_analysis_stats: { malicious, suspicious, harmless: 60, undetected: 10 },
        ...(reputation === undefined ? {} : { reputation }),
      },
    },
  };
}

describe('checkThreatIntel', () => {
  it('never contacts the service without a key', async () => {
    const server = await vendor(sendJson(domainReport(5, 0)));
    const ctx = context({ fetch, config: { threatIntel: { endpoint: server.origin, timeoutMs: 1_000 } } });

    const result = await checkThreatIntel(input(), ctx);

    expect(result.status).toBe('skipped');
    expect(server.requests).toHaveLength(0);
  });

  it('asks for the domain report with the key in x-apikey', async () => {
    const server = await vendor(sendJson(domainReport(0, 0, 5)));
    const ctx = context({ fetch, config: { threatIntel: { endpoint: `${server.origin}/proxy`, key: 'vt-key', timeoutMs: 1_000 } } });

    const result = await checkThreatIntel(input({ domain: 'Brand.Test.' }), ctx);

    expect(server.requests.map((r) => [r.url, r.headers['x-apikey']])).toEqual([['/proxy/api/v3/domains/brand.test', 'vt-key']]);
    expect(result.data).toMatchObject({ verdict: 'not_blocked', malicious: 0, reputation: 5 });
    expect(result.findings).toEqual([]);
  });

  it.each([
    ['two engines say malicious', domainReport(2, 0, 0)],
    ['the reputation is below -10', domainReport(0, 1, -11)],
  ])('fires threatintel_blocked when %s', async (_name, report) => {
    const server = await vendor(sendJson(report));
    const ctx = context({ fetch, config: { threatIntel: { endpoint: server.origin, key: 'k', timeoutMs: 1_000 } } });

    const result = await checkThreatIntel(input(), ctx);

    expect(result.findings).toEqual([expect.objectContaining({ rule_id: 'mailscan.reputation.threatintel_blocked', severity: 'high' })]);
  });

  it.each([
    ['one engine says malicious', domainReport(1, 3, 0)],
    ['the reputation is exactly -10', domainReport(0, 0, -10)],
  ])('does not fire when %s', async (_name, report) => {
    const server = await vendor(sendJson(report));
    const ctx = context({ fetch, config: { threatIntel: { endpoint: server.origin, key: 'k', timeoutMs: 1_000 } } });

    const result = await checkThreatIntel(input(), ctx);

    expect(result.data.verdict).toBe('not_blocked');
    expect(result.findings).toEqual([]);
  });

  it('reports a domain the vendor does not know without a finding', async () => {
    const server = await vendor((_req, res) => res.writeHead(404).end());
    const ctx = context({ fetch, config: { threatIntel: { endpoint: server.origin, key: 'k', timeoutMs: 1_000 } } });

    const result = await checkThreatIntel(input(), ctx);

    expect(result).toMatchObject({ status: 'ok', data: { verdict: 'unknown_to_vendor' }, findings: [] });
  });

  it('treats a rejected key or a timeout as an error, not a verdict', async () => {
    const rejected = await vendor((_req, res) => res.writeHead(401).end());
    const silent = await vendor(() => undefined);

    const denied = await checkThreatIntel(
      input(),
      context({ fetch, config: { threatIntel: { endpoint: rejected.origin, key: 'k', timeoutMs: 1_000 } } }),
    );
    const slow = await checkThreatIntel(
      input(),
      context({ fetch, config: { threatIntel: { endpoint: silent.origin, key: 'k', timeoutMs: 100 } } }),
    );

    expect(denied).toMatchObject({ status: 'error', findings: [], errors: [{ check: 'threat_intel', message: 'brand.test: HTTP 401' }] });
    expect(slow).toMatchObject({ status: 'error', findings: [] });
    expect(slow.errors[0].message).toContain('timeout');
  });
});
