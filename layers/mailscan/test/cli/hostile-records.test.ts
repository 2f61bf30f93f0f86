import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

/** A PKCS#1 RSAPublicKey with a 44,000-byte modulus: it parses, and claims 351,999 bits. */
function absurdRsaKey(): string {
  const length = (n: number) => {
    if (n < 128) return Buffer.from([n]);
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
    return Buffer.from([0x80 | bytes.length, ...bytes]);
  };
  const tlv = (tag: number, content: Buffer) => Buffer.concat([Buffer.from([tag]), length(content.length), content]);
  const modulus = Buffer.alloc(44_000, 0xab);
  modulus[0] = 0x7f;
  return tlv(0x30, Buffer.concat([tlv(0x02, modulus), tlv(0x02, Buffer.from([1, 0, 1]))])).toString('base64');
}

/** Records a hostile or careless zone publishes: each must be judged for what it is, never as strong or missing. */
describe('mailscan scan: hostile DMARC and DKIM records', () => {
  let dns: TestDnsServer;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
    const strings = (absurdRsaKey().match(/.{1,250}/g) ?? []).map((part) => `"${part}"`).join(' ');
    dns.addZone(`huge._domainkey IN TXT "v=DKIM1; k=rsa; p=" ${strings}`, 'hostilekeys.test');
  });
  afterAll(async () => {
    await dns.close();
  });

  it('ignores DMARC tags it does not know, with underscores or digits in their names', async () => {
    const { report } = await scan('hostilekeys.test', dns.address, ['--no-reputation']);

    expect(report.surfaces.posture.dmarc).toMatchObject({ status: 'ok', policy: 'reject', record: expect.stringContaining('x_ext=1') });
    expect(report.findings.map((item) => item.rule_id)).not.toContain('mailscan.dmarc.missing');
  });

  it('reports each unreadable DKIM key as such and never counts it as a key', async () => {
    const selectors = ['badb64', 'ed31', 'huge'].flatMap((name) => ['--dkim-selector', name]);

    const { report } = await scan('hostilekeys.test', dns.address, ['--no-reputation', ...selectors]);

    const unreadable = report.findings.filter((item) => item.rule_id === 'mailscan.dkim.unreadable_key');
    expect(Object.fromEntries(unreadable.map((item) => [item.evidence.selector, item.evidence.problem]))).toEqual({
      badb64: 'p= is not valid base64',
      ed31: expect.stringContaining('an Ed25519 key is 32 bytes, this one is 31'),
      huge: expect.stringContaining('351999-bit modulus'),
    });
    expect(report.surfaces.posture.dkim.status).toBe('none');
    expect(report.findings.map((item) => item.rule_id)).toContain('mailscan.dkim.not_found');
    expect(report.surfaces.posture.score_breakdown).toMatchObject({ dkim: 0 });
  });
});
