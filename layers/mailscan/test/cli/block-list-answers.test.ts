import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

/** Block-lists without a return-code table, through the real CLI and an authoritative DNS server. */
describe('mailscan scan: answers of block-lists we have no table for', () => {
  let dns: TestDnsServer;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('reports 127.255.255.254 and a list that lists 127.0.0.1 as errors naming list and code, never as listings', async () => {
    const { report } = await scan('rep-refused.test', dns.address, ['--config', 'test/fixtures/mailscan/config/unknown-lists.json']);

    expect(report.findings.filter((item) => item.rule_id === 'mailscan.dnsbl.listed')).toEqual([]);
    expect(report.surfaces.reputation.status).toBe('error');
    expect(
      report.errors
        .filter((entry) => entry.check === 'dnsbl')
        .map((entry) => entry.message)
        .sort(),
    ).toEqual([
      expect.stringMatching(
        /^all\.rep-unknown\.test 203\.0\.113\.202: 127\.0\.0\.2: not a listing: the list also lists its RFC 5782 test entry 1\.0\.0\.127\.all\.rep-unknown\.test/,
      ),
      'bl.rep-unknown.test 203.0.113.202: 127.255.255.254: query refused (127.255.255.0/24 is reserved for errors)',
    ]);
    expect(report.surfaces.reputation).toMatchObject({
      dnsbl: {
        list_checks: expect.arrayContaining([expect.objectContaining({ zone: 'all.rep-unknown.test', status: 'answers_everything' })]),
      },
    });
  });
});
