import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';
import { BASE_MESSAGE, closeDkimpy, dkimSign, makeTestKeys } from '../helpers/signed-messages.ts';

describe('mailscan scan --eml', () => {
  const work = mkdtempSync(join(tmpdir(), 'header-cli-'));
  let dns: TestDnsServer;
  let tampered: string;

  beforeAll(async () => {
    const keys = makeTestKeys();
    const [server, signed] = await Promise.all([
      startDnsServer({ zoneDir, zones: [{ text: keys.zone }] }),
      dkimSign(BASE_MESSAGE, { selector: 'rsa', domain: 'signer.test', key: keys.rsa }),
      buildCli(),
    ]);
    dns = server;
    tampered = join(work, 'tampered.eml');
    writeFileSync(tampered, signed.toString('latin1').replace('To: Bob', 'To: Eve'), 'latin1');
  });
  afterAll(async () => {
    closeDkimpy();
    await dns.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("verifies the message's DKIM signature with the key from the scan's nameserver", async () => {
    const { report } = await scan('signer.test', dns.address, ['--no-reputation', '--eml', tampered]);

    expect(report.surfaces.header).toMatchObject({
      status: 'ok',
      file: 'tampered.eml',
      dkim: [{ domain: 'signer.test', body_hash: 'pass', result: 'fail' }],
      received: { hops: [expect.objectContaining({ hop: 1 }), expect.objectContaining({ hop: 2 })] },
    });
    expect(report.findings.filter((item) => item.rule_id.startsWith('mailscan.header.'))).toEqual([
      expect.objectContaining({ rule_id: 'mailscan.header.dkim_signature_invalid', severity: 'high' }),
    ]);
  });

  it('lists a file that is not a message as an error of the header surface', async () => {
    const path = join(work, 'not-mail.eml');
    writeFileSync(path, '%PDF-1.7 binary');

    const { report } = await scan('signer.test', dns.address, ['--no-reputation', '--eml', path]);

    expect(report.surfaces.header.status).toBe('error');
    expect(report.errors).toEqual([
      expect.objectContaining({ surface: 'header', check: 'message', message: expect.stringContaining('not an RFC 5322 message') }),
    ]);
  });
});
