/**
 * Bad answers from every side m365scan reads (issue 38): an OpenID answer of 10 MB, a federation
 * metadata XML bomb, a getuserrealm redirect loop, a 500, garbage JSON, a server that never
 * answers, throttling, a DNS server that does not answer. Each ends as an `error` check with a
 * reason, never a pass, a finding or a crash.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngineReport } from '../../../lib/report.ts';
import type { Misbehaviour } from './helpers/microsoft.ts';
import { startWorld, statuses, type World } from './helpers/world.ts';

const errorOf = (report: EngineReport, rule: string): string =>
  report.errors
    .filter((error) => error.check === rule)
    .map((error) => error.message)
    .join(' | ');

describe('m365scan given bad answers', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld('127.0.38.2');
  }, 30_000);
  afterAll(async () => world?.close());
  beforeEach(() => {
    world.fakes.resetCounts();
    for (const key of [
      'openid:contoso.test',
      'realm:contoso.test',
      'credtype:contoso.test',
      'sts.fabrikam.test/FederationMetadata/2007-06/FederationMetadata.xml',
      'mta-sts.contoso.test/.well-known/mta-sts.txt',
      'sts.fabrikam.test/adfs/ls/idpinitiatedsignon.aspx',
    ])
      world.fakes.misbehave(key, undefined);
  });

  const tenantCases: [string, string, Misbehaviour, RegExp][] = [
    ['an OpenID answer of 10 MB', 'openid:contoso.test', 'huge', /exceeds 1048576 bytes/],
    ['garbage JSON from the OpenID configuration', 'openid:contoso.test', 'garbage', /not JSON/],
    ['a 500 from the OpenID configuration', 'openid:contoso.test', 'error500', /HTTP 500/],
    ['a getuserrealm loop of redirects', 'realm:contoso.test', 'redirect_loop', /redirect, which is not followed/],
    ['a throttled getuserrealm', 'realm:contoso.test', 'throttle', /throttled: .* answered 429 \(Retry-After 60\)/],
  ];
  for (const [name, key, how, reason] of tenantCases) {
    it(`makes ${name} an error of the tenant check with its reason`, async () => {
      world.fakes.misbehave(key, how);
      const { code, report } = await world.scan('contoso.test');
      expect(code).toBe(0);
      const status = statuses(report!);
      expect(errorOf(report!, 'm365.tenant.detected')).toMatch(reason);
      if (key.startsWith('realm:')) {
        // Without the realm the namespace type is unknown: no tenant is claimed, nothing below it runs.
        expect(status['m365.tenant.detected']).toBe('error');
        expect(status['m365.seamless_sso.enabled']).toBe('error');
        expect(report!.findings.filter((finding) => finding.rule_id === 'm365.tenant.detected')).toEqual([]);
      } else {
        // The realm still says it is a managed tenant: the finding stands, the check says what it could not read.
        expect(status['m365.tenant.detected']).toBe('fail');
        expect(report!.findings.find((finding) => finding.rule_id === 'm365.tenant.detected')!.evidence.tenant_id).toBeNull();
      }
      expect(report!.status).toBe('partial');
      // The DNS checks are not spoilt by it.
      expect(status['m365.dns.dangling_cname']).toBe('pass');
      expect(world.fakes.requestsFor('contoso.test')).toBeLessThanOrEqual(25);
    }, 30_000);
  }

  it('makes a hanging OpenID server an error once the request time bound passes', async () => {
    world.fakes.misbehave('openid:contoso.test', 'hang');
    world.fakes.misbehave('realm:contoso.test', 'hang');
    const { report } = await world.scan('contoso.test', {}, { M365SCAN_REQUEST_TIMEOUT_MS: '300' });
    expect(statuses(report!)['m365.tenant.detected']).toBe('error');
    expect(errorOf(report!, 'm365.tenant.detected')).toMatch(/no complete response within 300 ms/);
    expect(statuses(report!)['m365.spf.no_eop_include']).toBe('pass');
  }, 30_000);

  it('makes throttled and garbage GetCredentialType answers errors of the SSO check', async () => {
    for (const how of ['throttle', 'garbage'] as const) {
      world.fakes.misbehave('credtype:contoso.test', how);
      const { report } = await world.scan('contoso.test');
      expect(statuses(report!)['m365.seamless_sso.enabled'], how).toBe('error');
      expect(errorOf(report!, 'm365.seamless_sso.enabled'), how).toMatch(how === 'throttle' ? /429/ : /not JSON/);
    }
  }, 30_000);

  it('refuses a federation metadata XML bomb without expanding it', async () => {
    world.fakes.misbehave('sts.fabrikam.test/FederationMetadata/2007-06/FederationMetadata.xml', 'xml_bomb');
    const { report } = await world.scan('fabrikam.test');
    expect(statuses(report!)['m365.adfs.signing_cert_expiring']).toBe('error');
    expect(errorOf(report!, 'm365.adfs.signing_cert_expiring')).toMatch(/DTD or entities, which are refused/);
    // The other ADFS checks still ran.
    expect(statuses(report!)['m365.adfs.idp_initiated_signon']).toBe('fail');
  }, 30_000);

  it('makes a 500 or a hang from a federation server page an error, never "not served"', async () => {
    world.fakes.misbehave('sts.fabrikam.test/adfs/ls/idpinitiatedsignon.aspx', 'error500');
    let { report } = await world.scan('fabrikam.test');
    expect(statuses(report!)['m365.adfs.idp_initiated_signon']).toBe('error');
    expect(errorOf(report!, 'm365.adfs.idp_initiated_signon')).toMatch(/HTTP 500/);
    world.fakes.misbehave('sts.fabrikam.test/adfs/ls/idpinitiatedsignon.aspx', 'hang');
    ({ report } = await world.scan('fabrikam.test', {}, { M365SCAN_REQUEST_TIMEOUT_MS: '300' }));
    expect(statuses(report!)['m365.adfs.idp_initiated_signon']).toBe('error');
  }, 30_000);

  it('makes a throttled or failing MTA-STS policy host an error, not a missing policy', async () => {
    for (const how of ['throttle', 'error500'] as const) {
      world.fakes.misbehave('mta-sts.contoso.test/.well-known/mta-sts.txt', how);
      const { report } = await world.scan('contoso.test');
      expect(statuses(report!)['m365.mta_sts.missing'], how).toBe('error');
      expect(statuses(report!)['m365.mta_sts.mx_mismatch'], how).toBe('error');
    }
  }, 30_000);

  it('makes an unanswering nameserver an error of every DNS check, never a pass', async () => {
    const { report } = await world.scan('contoso.test', {}, { M365SCAN_NAMESERVERS: '127.0.0.1:9', M365SCAN_DNS_TIMEOUT_MS: '100' });
    const status = statuses(report!);
    for (const rule of [
      'm365.spf.no_eop_include',
      'm365.dkim.not_enabled',
      'm365.mta_sts.missing',
      'm365.dns.dangling_cname',
      'm365.exchange_onprem.exposed',
    ])
      expect(status[rule], rule).toBe('error');
    expect(report!.findings.filter((finding) => finding.rule_id !== 'm365.tenant.detected')).toEqual([]);
  }, 30_000);

  it('ends at its deadline with a partial report when a server hangs past it', async () => {
    world.fakes.misbehave('openid:contoso.test', 'hang');
    world.fakes.misbehave('realm:contoso.test', 'hang');
    const { code, report } = await world.scan('contoso.test', {}, {}, 3);
    expect(code).toBe(0);
    expect(report!.status).toBe('partial');
    expect(statuses(report!)['m365.tenant.detected']).toBe('error');
    expect(statuses(report!)['m365.dns.dangling_cname']).toBe('pass');
  }, 30_000);
});
