/**
 * m365scan on real NSD zones and the loopback Microsoft fakes (DESIGN §19): a managed tenant, a
 * federated tenant with ADFS, dangling CNAMEs and a domain with no Microsoft at all. Each rule is
 * seen firing and not firing; the fakes count every request from their side.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EngineReport } from '../../../lib/report.ts';
import { catalogue } from '../src/index.ts';
import { CONTOSO_TENANT, FABRIKAM_TENANT, OWA_BUILD, startWorld, statuses, type World } from './helpers/world.ts';

const findings = (report: EngineReport, rule: string) => report.findings.filter((finding) => finding.rule_id === rule);

describe('m365scan on NSD zones and recorded Microsoft shapes', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld('127.0.38.1');
  }, 30_000);
  afterAll(async () => world?.close());
  beforeEach(() => world.fakes.resetCounts());

  it('reads a managed tenant: tenant facts, and every mail and DNS check passing', async () => {
    const { code, report } = await world.scan('contoso.test');
    expect(code).toBe(0);
    expect(report!.status).toBe('ok');
    expect(report!.checks.map((check) => check.id)).toEqual(catalogue.map((rule) => rule.rule_id));
    expect(statuses(report!)).toEqual({
      'm365.tenant.detected': 'fail',
      'm365.spf.no_eop_include': 'pass',
      'm365.dkim.not_enabled': 'pass',
      'm365.mta_sts.missing': 'pass',
      'm365.mta_sts.mx_mismatch': 'pass',
      'm365.dns.dangling_cname': 'pass',
      'm365.seamless_sso.enabled': 'pass',
      'm365.adfs.idp_initiated_signon': 'skipped',
      'm365.adfs.legacy_endpoint': 'skipped',
      'm365.adfs.signing_cert_expiring': 'skipped',
      'm365.exchange_onprem.exposed': 'pass',
    });
    expect(findings(report!, 'm365.tenant.detected')[0].evidence).toMatchObject({
      tenant_id: CONTOSO_TENANT,
      region: 'EU',
      namespace_type: 'Managed',
      brand: 'Contoso',
      initial_domain: 'contoso.onmicrosoft.com',
      federation_host: null,
    });
    expect(report!.checks.find((check) => check.id === 'm365.adfs.legacy_endpoint')!.detail).toContain('managed');
    expect(report!.checks.find((check) => check.id === 'm365.spf.no_eop_include')!.coverage).toEqual({
      kind: 'mail',
      surfaces: ['m365:contoso.test'],
      selectors: [],
      lists: [],
    });
  });

  it('reads a federated tenant with ADFS: every tenant, ADFS, mail and Exchange rule fires', async () => {
    const { report } = await world.scan('fabrikam.test');
    expect(report!.status).toBe('ok');
    expect(statuses(report!)).toEqual({
      'm365.tenant.detected': 'fail',
      'm365.spf.no_eop_include': 'fail',
      'm365.dkim.not_enabled': 'fail',
      'm365.mta_sts.missing': 'pass',
      'm365.mta_sts.mx_mismatch': 'fail',
      'm365.dns.dangling_cname': 'pass',
      'm365.seamless_sso.enabled': 'fail',
      'm365.adfs.idp_initiated_signon': 'fail',
      'm365.adfs.legacy_endpoint': 'fail',
      'm365.adfs.signing_cert_expiring': 'fail',
      'm365.exchange_onprem.exposed': 'fail',
    });
    expect(findings(report!, 'm365.tenant.detected')[0].evidence).toMatchObject({
      tenant_id: FABRIKAM_TENANT,
      region: 'NA',
      namespace_type: 'Federated',
      brand: 'Fabrikam Inc',
      initial_domain: 'fabrikam.onmicrosoft.com',
      federation_host: 'sts.fabrikam.test',
    });
    const [expiring] = findings(report!, 'm365.adfs.signing_cert_expiring');
    expect(expiring.severity).toBe('medium');
    expect(expiring.evidence).toMatchObject({ days_left: 10, federation_host: 'sts.fabrikam.test' });
    expect(String(expiring.evidence.subject)).toContain('ADFS Signing - sts.fabrikam.test');
    expect(findings(report!, 'm365.adfs.legacy_endpoint').map((finding) => finding.evidence.endpoint)).toEqual([
      '/adfs/services/trust/2005/usernamemixed',
    ]);
    expect(findings(report!, 'm365.exchange_onprem.exposed')[0].evidence).toMatchObject({
      host: 'mail.fabrikam.test',
      build: `${OWA_BUILD}.7`,
    });
    expect(findings(report!, 'm365.dkim.not_enabled').map((finding) => [finding.evidence.selector, finding.evidence.cname])).toEqual([
      ['selector1', 'selector1-fabrikam-test._domainkey.fabrikam.onmicrosoft.com'],
      ['selector2', null],
    ]);
    expect(findings(report!, 'm365.mta_sts.mx_mismatch')[0].evidence.uncovered).toEqual(['fabrikam-test.mail.protection.outlook.com']);
    expect(findings(report!, 'm365.spf.no_eop_include')[0].locations).toEqual(['mail:m365:fabrikam.test']);
  });

  it('finds the dangling CNAMEs and skips the tenant checks of a domain no tenant knows', async () => {
    const { report } = await world.scan('dangling.test');
    const status = statuses(report!);
    expect(status['m365.dns.dangling_cname']).toBe('fail');
    expect(findings(report!, 'm365.dns.dangling_cname').map((finding) => [finding.subject, finding.evidence.target])).toEqual([
      ['lyncdiscover.dangling.test', 'dangling-old.trafficmanager.net'],
      ['sip.dangling.test', 'dangling-gone.cloudapp.net'],
      ['enterpriseregistration.dangling.test', 'dangling-removed.windows.net'],
    ]);
    expect(findings(report!, 'm365.dns.dangling_cname')[0].severity).toBe('high');
    for (const rule of ['m365.tenant.detected', 'm365.seamless_sso.enabled', 'm365.adfs.legacy_endpoint']) {
      expect(status[rule]).toBe('skipped');
      expect(report!.checks.find((check) => check.id === rule)!.detail).toContain('not a Microsoft 365 domain');
    }
    expect(status['m365.mta_sts.missing']).toBe('fail');
    expect(status['m365.mta_sts.mx_mismatch']).toBe('skipped');
  });

  it('runs the DNS checks on a domain with no Microsoft at all and fires nothing', async () => {
    const { report } = await world.scan('plain.test');
    expect(report!.findings).toEqual([]);
    expect(report!.errors).toEqual([]);
    const status = statuses(report!);
    for (const rule of [
      'm365.spf.no_eop_include',
      'm365.mta_sts.missing',
      'm365.mta_sts.mx_mismatch',
      'm365.dns.dangling_cname',
      'm365.exchange_onprem.exposed',
    ])
      expect(status[rule], rule).toBe('pass');
    expect(status['m365.tenant.detected']).toBe('skipped');
    // The tenant check asked the OpenID configuration and the realm, nothing more.
    expect(world.fakes.loginLog.map((entry) => entry.path.split('?')[0]).sort()).toEqual([
      '/getuserrealm.srf',
      '/plain.test/v2.0/.well-known/openid-configuration',
    ]);
  });

  it('asks about one fabricated address, signs nothing in, and stays within 25 requests a domain', async () => {
    const { report } = await world.scan('fabrikam.test', { extra_domains: ['contoso.test'] });
    expect(report!.status).toBe('ok');
    for (const domain of ['fabrikam.test', 'contoso.test']) {
      expect(world.fakes.requestsFor(domain), domain).toBeGreaterThan(3);
      expect(world.fakes.requestsFor(domain), domain).toBeLessThanOrEqual(25);
    }
    const asked = new Set<string>();
    for (const entry of world.fakes.loginLog) {
      const realm = /login=([^&]+)/.exec(entry.path)?.[1];
      if (realm) asked.add(decodeURIComponent(realm));
      if (entry.body) asked.add((JSON.parse(entry.body) as { username: string }).username);
      expect(entry.path).not.toMatch(/oauth2|token|login\.srf|kmsi/i);
    }
    expect([...asked].sort((a, b) => a.split('@')[1].localeCompare(b.split('@')[1]))).toEqual([
      expect.stringMatching(/^m365scan-[0-9a-f]{12}@contoso\.test$/),
      expect.stringMatching(/^m365scan-[0-9a-f]{12}@fabrikam\.test$/),
    ]);
    // Both domains' checks are one check per rule, covering both domains where each completed.
    expect(report!.checks.find((check) => check.id === 'm365.dns.dangling_cname')!.coverage).toMatchObject({
      surfaces: ['m365:fabrikam.test', 'm365:contoso.test'],
    });
    expect(findings(report!, 'm365.tenant.detected').map((finding) => finding.subject)).toEqual(['fabrikam.test', 'contoso.test']);
  });

  it('skips the ADFS checks when the scope turns them off', async () => {
    const { report } = await world.scan('fabrikam.test', { adfs: false });
    expect(statuses(report!)['m365.adfs.signing_cert_expiring']).toBe('skipped');
    expect(report!.checks.find((check) => check.id === 'm365.adfs.signing_cert_expiring')!.detail).toContain('scope.adfs is false');
    expect(world.fakes.requestsFor('sts.fabrikam.test')).toBe(0);
  });

  it.each([
    ['neither setting', { M365SCAN_ALLOW_LOOPBACK: '0' }],
    ['private networks allowed', { M365SCAN_ALLOW_LOOPBACK: '0', M365SCAN_ALLOW_PRIVATE: '1' }],
  ])('refuses loopback hosts unless the loopback setting admits them (%s)', async (_, env) => {
    const { report } = await world.scan('fabrikam.test', {}, env);
    const status = statuses(report!);
    // The login URL is loopback here too: nothing about the tenant can be read, and nothing is claimed.
    expect(status['m365.tenant.detected']).toBe('error');
    expect(status['m365.exchange_onprem.exposed']).toBe('error');
    expect(report!.errors.map((error) => error.message).join(' ')).toMatch(/loopback/);
    expect(report!.findings.filter((finding) => finding.rule_id.startsWith('m365.adfs'))).toEqual([]);
  });
});
