import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

/**
 * Posture hands its SPF count, DKIM keys and MX data to the reputation surface, which emits
 * mailscan.spf.lookup_limit and mailscan.dkim.weak_key: checked end to end through the real CLI.
 */
describe('mailscan scan: posture data judged by the reputation surface', () => {
  let dns: TestDnsServer;
  let vendor: http.Server;
  let vendorRequests = 0;
  let vendorUrl = '';
  const env = () => ({ MAILSCAN_SENDERSCORE_URL: vendorUrl, MAILSCAN_THREATINTEL_URL: vendorUrl });
  const findingsOf = async (domain: string) => {
    const { report } = await scan(domain, dns.address, ['--config', 'test/fixtures/mailscan/config/no-lists.json'], env());
    return report.findings
      .filter((item) => item.rule_id === 'mailscan.spf.lookup_limit' || item.rule_id === 'mailscan.dkim.weak_key')
      .map((item) => `${item.rule_id}:${item.severity}`);
  };

  beforeAll(async () => {
    vendor = http.createServer((_req, res) => {
      vendorRequests += 1;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
    vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
    await new Promise<void>((resolve) => vendor.close(() => resolve()));
  });

  it('reports 11 SPF lookups and not exactly 10', async () => {
    expect(await findingsOf('eleven.test')).toEqual(['mailscan.spf.lookup_limit:high']);
    expect(await findingsOf('ten.test')).toEqual([]);
  });

  it('reports an include loop as over the lookup limit', async () => {
    expect(await findingsOf('loop.test')).toEqual(['mailscan.spf.lookup_limit:high']);
  });

  it('reports RSA keys under 1024 bits as high and under 2048 as medium, and not 2048-bit or Ed25519 keys', async () => {
    const [rsa512, rsa1024, rsa2048, ed25519] = await Promise.all(
      ['dkim512.test', 'dkim1024.test', 'dkim2048.test', 'dkimed.test'].map(findingsOf),
    );

    expect(rsa512).toEqual(['mailscan.dkim.weak_key:high']);
    expect(rsa1024).toEqual(['mailscan.dkim.weak_key:medium']);
    expect(rsa2048).toEqual([]);
    expect(ed25519).toEqual([]);
  });

  it('hands the MX hosts and addresses over and contacts no keyed service without a key', async () => {
    const { report } = await scan('good.test', dns.address, ['--config', 'test/fixtures/mailscan/config/no-lists.json'], env());

    expect(report.surfaces.reputation.status).toBe('ok');
    expect(report.surfaces.reputation).toMatchObject({
      sender_score: { status: 'skipped', outcome: 'skipped' },
      threat_intel: { status: 'skipped' },
      spf_lookup_limit: { status: 'within_limit', outcome: 'ok', lookups: 2 },
      dkim_key_hygiene: {
        keys: [
          expect.objectContaining({ selector: 's1', verdict: 'ok' }),
          expect.objectContaining({ selector: 'selector1', verdict: 'ok' }),
        ],
      },
    });
    expect(JSON.stringify(report.surfaces.reputation.dane)).toContain('mx2.good.test');
    expect(vendorRequests).toBe(0);
  });
});
