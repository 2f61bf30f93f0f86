import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

/** Each posture rule firing and not firing, through the real CLI against the loopback DNS server. */
describe.concurrent('mailscan scan: posture findings', () => {
  let dns: TestDnsServer;
  const ruleIds = async (domain: string, flags: string[] = []) => {
    const { report } = await scan(domain, dns.address, ['--no-reputation', ...flags]);
    return report.findings.map((item) => `${item.rule_id}:${item.severity}`).sort();
  };

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('reports no finding for a well-configured domain, with score 100 and grade A', async () => {
    const { report } = await scan('good.test', dns.address, ['--no-reputation']);

    expect(report.findings).toEqual([]);
    expect(report.errors).toEqual([]);
    expect(report.surfaces.posture).toMatchObject({ status: 'ok', score: 100, grade: 'A' });
    expect(report.surfaces.posture.dkim.keys.map((key) => [key.selector, key.key_type, key.bits])).toEqual([
      ['s1', 'ed25519', 256],
      ['selector1', 'rsa', 2048],
    ]);
  });

  it('reports a missing SPF record, DMARC record and DKIM key', async () => {
    expect(await ruleIds('bare.test')).toEqual([
      'mailscan.dkim.not_found:medium',
      'mailscan.dmarc.missing:high',
      'mailscan.spf.missing:high',
    ]);
  });

  it('reports +all as high and p=none', async () => {
    expect(await ruleIds('plusall.test')).toEqual([
      'mailscan.dkim.not_found:medium',
      'mailscan.dmarc.policy_none:medium',
      'mailscan.spf.permissive_all:high',
    ]);
  });

  it('reports ?all and a record without all as medium', async () => {
    expect(await ruleIds('qall.test')).toContain('mailscan.spf.permissive_all:medium');
    expect(await ruleIds('noall.test')).toContain('mailscan.spf.permissive_all:medium');
  });

  it('reports two SPF records', async () => {
    const { report } = await scan('twospf.test', dns.address, ['--no-reputation']);

    expect(report.findings.map((item) => item.rule_id)).toContain('mailscan.spf.multiple_records');
    expect(report.surfaces.posture.spf).toMatchObject({
      status: 'permerror',
      records: ['v=spf1 ip4:192.0.2.1 -all', 'v=spf1 ip4:192.0.2.2 -all'],
    });
  });

  it('reports more than two void lookups and accepts exactly two', async () => {
    const over = await scan('voids.test', dns.address, ['--no-reputation']);
    const within = await scan('twovoids.test', dns.address, ['--no-reputation']);

    expect(over.report.findings.map((item) => item.rule_id)).toContain('mailscan.spf.void_lookup_limit');
    expect(over.report.surfaces.posture.spf.void_lookups).toBe(3);
    expect(within.report.findings.map((item) => item.rule_id)).not.toContain('mailscan.spf.void_lookup_limit');
    expect(within.report.surfaces.posture.spf.void_lookups).toBe(2);
  });

  it('does not report DKIM as missing when a key exists at a custom selector', async () => {
    const without = await ruleIds('dkimcustom.test');
    const withSelector = await scan('dkimcustom.test', dns.address, ['--no-reputation', '--dkim-selector', 'brand2024']);

    expect(without).toContain('mailscan.dkim.not_found:medium');
    expect(withSelector.report.findings.map((item) => item.rule_id)).not.toContain('mailscan.dkim.not_found');
    expect(withSelector.report.surfaces.posture.dkim.keys.map((key) => [key.selector, key.revoked])).toEqual([
      ['selector1', true],
      ['brand2024', false],
    ]);
  });

  it('does not report a missing DMARC record when the organizational domain has one', async () => {
    const { report } = await scan('mail.orgdmarc.test', dns.address, ['--no-reputation']);

    expect(report.findings.map((item) => item.rule_id)).not.toContain('mailscan.dmarc.missing');
    expect(report.surfaces.posture.dmarc).toMatchObject({
      status: 'ok',
      source: 'organizational',
      record_domain: 'orgdmarc.test',
      policy: 'quarantine',
    });
  });

  it('does not report policy none for an enforcing policy', async () => {
    expect(await ruleIds('good.test')).not.toContain('mailscan.dmarc.policy_none:medium');
  });
});
