import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

/** A name inside a served zone that does not exist: the zone answers NXDOMAIN with its SOA. */
describe('mailscan scan: a domain that does not exist', () => {
  let dns: TestDnsServer;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('says domain_exists false with its evidence, no missing-record finding and no score', async () => {
    const { report } = await scan('typo.good.test', dns.address, ['--config', 'test/fixtures/mailscan/config/no-lists.json']);

    expect(report.domain_exists).toBe(false);
    expect(report.nonexistence).toEqual({
      answers: [
        { name: 'typo.good.test', type: 'TXT', rcode: 'NXDOMAIN' },
        { name: 'typo.good.test', type: 'MX', rcode: 'NXDOMAIN' },
      ],
      closest_existing_parent: 'good.test',
      soa: { zone: 'good.test', mname: 'ns.good.test', rname: 'hostmaster.good.test', serial: 1 },
    });
    expect(report.findings.map((item) => item.rule_id)).toEqual([]);
    expect(report.surfaces.posture).toMatchObject({ score: null, grade: null });
  });

  it('says an existing domain exists', async () => {
    const { report } = await scan('good.test', dns.address, ['--no-reputation']);

    expect(report.domain_exists).toBe(true);
    expect(report.nonexistence).toBeUndefined();
  });

  it('leads the text format with it', async () => {
    const run = await runCli(['scan', 'typo.good.test', '--nameserver', dns.address, '--no-reputation', '--format', 'text']);

    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(
      'typo.good.test does not exist (NXDOMAIN); closest existing parent good.test (zone good.test, SOA ns.good.test serial 1)',
    );
  });
});
