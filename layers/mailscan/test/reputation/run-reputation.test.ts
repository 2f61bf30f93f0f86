import { afterEach, describe, expect, it } from 'vitest';
import type { DnsAnswer, RecordType, Resolver } from '../../../../lib/dns/resolver.ts';
import { makeSafeFetch } from '../../../../lib/http/safe-fetch.ts';
import { runReputation } from '../../src/reputation/index.ts';
import { makeFakeResolver } from '../helpers/fake-resolver.ts';
import { sendJson, startLoopbackServer, type LoopbackServer } from './loopback-server.ts';
import { context, found, input, timeout } from './test-context.ts';

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const fetch = makeSafeFetch({ timeoutMs: 2_000, maxBytes: 64 * 1024, allowPrivate: false, allowLoopback: true });
const mx = [{ host: 'mx1.brand.test', preference: 10, ipv4: ['203.0.113.10'], ipv6: [] }];
const lists = { dnsbl: { ipZones: ['zen.spamhaus.org'], domainZones: ['dbl.spamhaus.org'] }, trustlist: { zones: ['list.dnswl.org'] } };

async function vendors(): Promise<{ score: LoopbackServer; intel: LoopbackServer }> {
  const score = await startLoopbackServer(sendJson({ ip: '203.0.113.10', score: 20 }));
  const intel = await startLoopbackServer(
    sendJson({ data: { attributes: { last_analysis_stats: { malicious: 3, suspicious: 0 }, reputation: -40 } } }),
  );
  servers.push(score, intel);
  return { score, intel };
}

describe('runReputation', () => {
  it('reports every check under its key and contacts no keyed service without a key', async () => {
    const { score, intel } = await vendors();
    const ctx = context({
      fetch,
      table: { 'DNSKEY brand.test': found({ flags: 257, algorithm: 13, key: Buffer.alloc(64) }) },
      config: {
        ...lists,
        senderScore: { endpoint: score.origin, timeoutMs: 1_000 },
        threatIntel: { endpoint: intel.origin, timeoutMs: 1_000 },
      },
    });

    const result = await runReputation(input({ mx }), ctx);

    expect(result.status).toBe('ok');
    expect(Object.keys(result.data).sort()).toEqual([
      'bimi',
      'dane',
      'dkim_key_hygiene',
      'dnsbl',
      'dnssec',
      'mx_provider',
      'sender_score',
      'spf_lookup_limit',
      'threat_intel',
      'trustlist',
    ]);
    expect(result.data.sender_score).toMatchObject({ status: 'skipped', outcome: 'skipped' });
    expect(result.data.threat_intel).toMatchObject({ status: 'skipped', outcome: 'skipped' });
    expect(result.data.spf_lookup_limit).toEqual({ status: 'within_limit', outcome: 'ok', lookups: 3, limit: 10 });
    expect(score.requests).toHaveLength(0);
    expect(intel.requests).toHaveLength(0);
    expect(result.findings).toEqual([]);
  });

  it('sends keyed requests and collects their findings with the others', async () => {
    const { score, intel } = await vendors();
    const ctx = context({
      fetch,
      table: { 'A 10.113.0.203.zen.spamhaus.org': found('127.0.0.2') },
      config: {
        ...lists,
        senderScore: { endpoint: score.origin, key: 's', timeoutMs: 1_000 },
        threatIntel: { endpoint: intel.origin, key: 't', timeoutMs: 1_000 },
      },
    });

    const result = await runReputation(
      input({ mx, spfLookups: 12, dkimKeys: [{ selector: 'old', keyType: 'rsa', bits: 1024, hashAlgorithms: [] }] }),
      ctx,
    );

    expect(score.requests.map((r) => r.url)).toEqual(['/v1/score?ip=203.0.113.10']);
    expect(intel.requests.map((r) => r.url)).toEqual(['/api/v3/domains/brand.test']);
    expect(result.findings.map((f) => f.rule_id).sort()).toEqual([
      'mailscan.dkim.weak_key',
      'mailscan.dnsbl.listed',
      'mailscan.dnssec.unsigned',
      'mailscan.reputation.mx_score_low',
      'mailscan.reputation.threatintel_blocked',
      'mailscan.spf.lookup_limit',
    ]);
  });

  it('is an error when a check errors, while the other checks still report', async () => {
    const ctx = context({
      table: { 'A 10.113.0.203.zen.spamhaus.org': found('127.255.255.254'), 'DNSKEY brand.test': timeout },
      config: lists,
    });

    const result = await runReputation(input({ mx, spfLookups: 11 }), ctx);

    expect(result.status).toBe('error');
    expect(result.errors.map((e) => e.check).sort()).toEqual(['dnsbl', 'dnssec']);
    expect(result.data.dnsbl).toMatchObject({ status: 'error' });
    expect(result.data.spf_lookup_limit).toEqual({ status: 'over_limit', outcome: 'ok', lookups: 11, limit: 10 });
    expect(result.data.dnssec).toMatchObject({ status: 'error', outcome: 'error' });
    expect(result.findings.map((f) => f.rule_id)).toEqual(['mailscan.spf.lookup_limit']);
  });

  it("turns a check that throws into that check's error", async () => {
    const fake = makeFakeResolver({});
    const resolver: Resolver = {
      query: <T extends RecordType>(name: string, type: T): Promise<DnsAnswer<T>> =>
        type === 'TLSA' ? Promise.reject(new Error('socket closed')) : fake.query(name, type),
    };
    const ctx = context({ resolver, config: lists });

    const result = await runReputation(input({ mx }), ctx);

    expect(result.status).toBe('error');
    expect(result.errors).toEqual([{ surface: 'reputation', check: 'dane', message: 'check failed: socket closed' }]);
    expect(result.data.dane).toEqual({ status: 'error', outcome: 'error' });
    expect(ctx.logged).toContainEqual({ event: 'reputation check failed', fields: { check: 'dane', message: 'socket closed' } });
  });

  it('starts every check before any DNS answer arrives', async () => {
    const resolver = makeFakeResolver({});
    resolver.hold = true;
    const ctx = context({ resolver, config: lists });

    const pending = runReputation(input({ mx }), ctx);
    await new Promise((resolve) => setImmediate(resolve));
    const asked = [...resolver.asked].sort();
    resolver.release();
    await pending;

    expect(asked).toEqual([
      'A 1.0.0.127.list.dnswl.org',
      'A 1.0.0.127.zen.spamhaus.org',
      'A 10.113.0.203.list.dnswl.org',
      'A 10.113.0.203.zen.spamhaus.org',
      'A brand.test.dbl.spamhaus.org',
      'A invalid.dbl.spamhaus.org',
      'DNSKEY brand.test',
      'DS brand.test',
      'TLSA _25._tcp.mx1.brand.test',
      'TXT default._bimi.brand.test',
    ]);
  });
});
