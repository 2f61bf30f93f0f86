import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeCachingResolver } from '../../../../lib/dns/caching-resolver.ts';
import { makeRawResolver } from '../../../../lib/dns/raw-resolver.ts';
import { lookupViaResolver } from '../../../../lib/http/resolver-lookup.ts';
import { makeSafeFetch } from '../../../../lib/http/safe-fetch.ts';
import type { ReputationContext, ReputationInput } from '../../src/reputation/context.ts';
import { reputationDefaults } from '../../src/reputation/defaults.ts';
import { runReputation } from '../../src/reputation/index.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';
import { routes, sendBody, startLoopbackServer, type LoopbackServer } from './loopback-server.ts';
import { NOW } from './test-context.ts';
import { makeIntermediate, makeLeaf, makeRoot, makeTlsServerCert, svgLogo, type Issuer } from './x509-fixtures.ts';

// The reputation surface against the real protocols: an authoritative DNS server on loopback
// serving the rep-*.zone fixtures, and a loopback HTTPS server for the BIMI assets.
let dns: TestDnsServer;
let web: LoopbackServer;
let vmcRoot: Issuer;
let tlsRoot: Issuer;

beforeAll(async () => {
  dns = await startDnsServer({
    zoneFiles: readdirSync(zoneDir)
      .filter((file) => file.startsWith('rep-'))
      .map((file) => join(zoneDir, file)),
  });
  vmcRoot = await makeRoot();
  tlsRoot = await makeRoot('CN=Test TLS Root');
  const intermediate = await makeIntermediate(vmcRoot);
  web = await startLoopbackServer(
    routes({
      '/logo.svg': sendBody(svgLogo, 'image/svg+xml'),
      '/valid.pem': sendBody((await makeLeaf(intermediate, { domains: ['rep-bimi.test'] })) + intermediate.pem),
      '/wrong-eku.pem': sendBody(
        (await makeLeaf(intermediate, { domains: ['rep-bimi.test'], eku: ['1.3.6.1.5.5.7.3.4'] })) + intermediate.pem,
      ),
    }),
    await makeTlsServerCert(tlsRoot, ['logo.rep-bimi.test']),
  );
});

afterAll(async () => {
  await Promise.all([dns.close(), web.close()]);
});

beforeEach(() => {
  dns.reset();
});

function reputationContext(config: Partial<ReputationContext['config']> = {}): ReputationContext {
  const resolver = makeCachingResolver(makeRawResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, attempts: 1 }));
  return {
    resolver,
    fetch: makeSafeFetch({
      timeoutMs: 2_000,
      maxBytes: 256 * 1024,
      allowPrivate: false,
      allowLoopback: true,
      lookup: lookupViaResolver(resolver),
      tlsCa: [tlsRoot.pem],
    }),
    config: {
      dnsbl: { ipZones: [...reputationDefaults.dnsbl.ipZones], domainZones: [...reputationDefaults.dnsbl.domainZones] },
      trustlist: { zones: [...reputationDefaults.trustlist.zones] },
      senderScore: { endpoint: '', timeoutMs: 1_000 },
      threatIntel: { endpoint: '', timeoutMs: 1_000 },
      vmcRoots: () => [vmcRoot.pem],
      ...config,
    },
    now: () => NOW,
    log: () => undefined,
  };
}

function mxInput(domain: string, ip: string | null): ReputationInput {
  return { domain, mx: ip ? [{ host: `mx1.${domain}`, preference: 10, ipv4: [ip], ipv6: [] }] : [], spfLookups: 2, dkimKeys: [] };
}

const ruleIds = (result: { findings: { rule_id: string }[] }) => result.findings.map((f) => f.rule_id).sort();

describe('runReputation through the loopback DNS server', () => {
  it('reports a signed zone with DANE and a trusted MX without findings', async () => {
    const result = await runReputation(mxInput('rep-signed.test', '203.0.113.203'), reputationContext());

    expect(result.status).toBe('ok');
    expect(result.findings).toEqual([]);
    expect(result.data.dnssec).toMatchObject({ state: 'signed', ds_records: [{ key_tag: 49027, matches_dnskey: true }] });
    expect(result.data.dane).toMatchObject({
      hosts: [
        {
          status: 'found',
          dnssec_validated: true,
          records: [{ usage_name: 'DANE-EE', selector_name: 'SPKI', matching_type_name: 'SHA2-256' }],
        },
      ],
    });
    expect(result.data.trustlist).toMatchObject({ results: [{ status: 'listed', meanings: ['trust medium (email service providers)'] }] });
  });

  it('fires dnsbl.listed for the MX address and the domain, and dnssec.unsigned', async () => {
    const result = await runReputation(mxInput('rep-listed.test', '203.0.113.201'), reputationContext());

    expect(result.status).toBe('ok');
    expect(ruleIds(result)).toEqual(['mailscan.dnsbl.listed', 'mailscan.dnsbl.listed', 'mailscan.dnssec.unsigned']);
    expect(
      result.findings
        .filter((f) => f.rule_id === 'mailscan.dnsbl.listed')
        .map((f) => f.evidence.subject)
        .sort(),
    ).toEqual(['203.0.113.201', 'rep-listed.test']);
    expect(result.data.dane).toMatchObject({ hosts: [{ status: 'absent' }] });
  });

  it('lists refused block-list answers as errors, neither listed nor clean', async () => {
    const result = await runReputation(mxInput('rep-refused.test', '203.0.113.202'), reputationContext());

    expect(result.status).toBe('error');
    expect(ruleIds(result)).toEqual(['mailscan.dnssec.unsigned']);
    expect(result.errors.map((e) => e.message).sort()).toEqual([
      expect.stringContaining('multi.uribl.com rep-refused.test: 127.0.0.1: query refused'),
      expect.stringContaining('zen.spamhaus.org 203.0.113.202: 127.255.255.254: query refused'),
    ]);
  });

  it('asks the DQS zone when a Spamhaus key is configured', async () => {
    const result = await runReputation(mxInput('rep-listed.test', '203.0.113.201'), reputationContext({ spamhausDqsKey: 'repdqskey' }));

    expect(dns.log.map((q) => q.name)).toContain('201.113.0.203.repdqskey.zen.dq.spamhaus.net');
    expect(dns.log.map((q) => q.name)).not.toContain('201.113.0.203.zen.spamhaus.org');
    expect(result.findings.find((f) => f.evidence.zone === 'zen.spamhaus.org')!.evidence.return_codes).toEqual(['127.0.0.4']);
  });

  it('reports DNS timeouts as errors, never as absent records or unsigned zones', async () => {
    dns.behave('rep-signed.test', { drop: true });
    dns.behave('_25._tcp.mx1.rep-signed.test', { drop: true });
    dns.behave('default._bimi.rep-signed.test', { drop: true });

    const result = await runReputation(mxInput('rep-signed.test', '203.0.113.203'), reputationContext());

    expect(result.status).toBe('error');
    expect(result.findings).toEqual([]);
    expect(result.data.dnssec).toMatchObject({ status: 'error', state: 'unknown' });
    expect(result.data.dane).toMatchObject({ hosts: [{ status: 'unknown' }] });
    expect(result.data.bimi).toMatchObject({ status: 'error', state: 'unknown' });
  });

  it('validates a BIMI VMC found through DNS and fetched over HTTPS, and flags a wrong EKU', async () => {
    const origin = `https://logo.rep-bimi.test:${web.port}`;
    dns.addZone(`default._bimi IN TXT "v=BIMI1; l=${origin}/logo.svg; a=${origin}/valid.pem"`, 'rep-bimi.test');
    dns.addZone(`default._bimi.news IN TXT "v=BIMI1; l=${origin}/logo.svg; a=${origin}/wrong-eku.pem"`, 'rep-bimi.test');

    const valid = await runReputation(mxInput('rep-bimi.test', null), reputationContext());
    const wrongEku = await runReputation(mxInput('news.rep-bimi.test', null), reputationContext());

    expect(valid.data.bimi).toMatchObject({ status: 'ok', vmc: { status: 'valid', chain: 'trusted', logo: 'matches' } });
    expect(wrongEku.findings.filter((f) => f.rule_id === 'mailscan.bimi.vmc_invalid').map((f) => f.evidence.reason)).toEqual([
      'eku_missing',
    ]);
  });
});
