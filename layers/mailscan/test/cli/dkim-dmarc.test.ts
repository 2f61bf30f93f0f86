import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

describe.concurrent('mailscan scan: DKIM keys and DMARC reporting', () => {
  let dns: TestDnsServer;
  const dkimOf = async (domain: string) => (await scan(domain, dns.address, ['--no-reputation'])).report.surfaces.posture;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('reads the size of 512, 1024 and 2048-bit RSA keys and Ed25519 keys', async () => {
    const [rsa512, rsa1024, rsa2048, ed25519] = await Promise.all(
      ['dkim512.test', 'dkim1024.test', 'dkim2048.test', 'dkimed.test'].map(dkimOf),
    );

    expect(rsa512.dkim.keys).toEqual([expect.objectContaining({ selector: 'mail', key_type: 'rsa', bits: 512 })]);
    expect(rsa1024.dkim.keys).toEqual([expect.objectContaining({ selector: 'default', key_type: 'rsa', bits: 1024 })]);
    expect(rsa2048.dkim.keys).toEqual([expect.objectContaining({ selector: 'google', key_type: 'rsa', bits: 2048 })]);
    expect(ed25519.dkim.keys).toEqual([expect.objectContaining({ selector: 'default', key_type: 'ed25519', bits: 256 })]);
  });

  it('scores a weaker key lower', async () => {
    const [rsa1024, rsa2048] = await Promise.all(['dkim1024.test', 'dkim2048.test'].map(dkimOf));

    expect(rsa1024.score_breakdown).toMatchObject({ dkim: 20 });
    expect(rsa2048.score_breakdown).toMatchObject({ dkim: 25 });
  });

  it('probes only the configured selectors when the config lists them', async () => {
    const { report } = await scan('dkimcustom.test', dns.address, [
      '--no-reputation',
      '--config',
      'test/fixtures/mailscan/config/custom-selectors.json',
    ]);

    expect(report.surfaces.posture.dkim).toMatchObject({ status: 'ok', selectors_probed: 1 });
    expect(report.surfaces.posture.dkim.keys.map((key) => key.selector)).toEqual(['brand2024']);
  });

  it('checks that external report destinations authorize the domain', async () => {
    const { report } = await scan('rua.test', dns.address, ['--no-reputation']);

    expect(report.surfaces.posture.dmarc.report_destinations).toEqual([
      {
        uri: 'mailto:reports@collector.test',
        kind: 'rua',
        address: 'reports@collector.test',
        domain: 'collector.test',
        external: true,
        authorized: true,
      },
      {
        uri: 'mailto:d@unauthorized.test',
        kind: 'rua',
        address: 'd@unauthorized.test',
        domain: 'unauthorized.test',
        external: true,
        authorized: false,
      },
      { uri: 'mailto:forensic@rua.test', kind: 'ruf', address: 'forensic@rua.test', domain: 'rua.test', external: false, authorized: null },
    ]);
  });

  it('reports the DMARC tags', async () => {
    const { report } = await scan('qall.test', dns.address, ['--no-reputation']);

    expect(report.surfaces.posture.dmarc).toMatchObject({
      status: 'ok',
      source: 'domain',
      policy: 'quarantine',
      tags: { p: 'quarantine', pct: 50, adkim: 'r', aspf: 'r', rua: [] },
    });
  });
});
