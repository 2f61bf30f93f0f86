import { tmpdir } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseArgs as parseCliArgs } from '../../layers/mailscan/src/cli/args.ts';
import { makeMailscanRunner, mailscanArgs, mailscanEnv } from '../../shared/adapters/runners/mailscan-runner.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { buildCli } from '../../layers/mailscan/test/helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../../layers/mailscan/test/helpers/dns-server.ts';
import { zoneDir } from '../../layers/mailscan/test/helpers/fixtures.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { expectPassesSayWhy } from '../helpers/pass-details.ts';

/** A fixture zone served under another name (the tests were written when the API took only public apex domains). */
function renamed(fixture: string, apex: string): { text: string; origin: string } {
  const text = readFileSync(join(zoneDir, `${fixture}.zone`), 'utf8').replaceAll(fixture, apex);
  return { text, origin: apex };
}

/** example.test publishes DMARC p=none; mail.example.test sends mail but has no DMARC record of its own. */
const exampleTest = {
  origin: 'example.test',
  text: [
    '@ IN SOA ns.example.test. hostmaster.example.test. ( 1 3600 600 86400 300 )',
    '@ IN NS ns',
    'ns IN A 127.0.0.1',
    '_dmarc IN TXT "v=DMARC1; p=none; rua=mailto:dmarc@example.test"',
    'mail IN TXT "v=spf1 mx -all"',
    'mail IN MX 10 mx.mail',
    'mx.mail IN A 198.51.100.25',
  ].join('\n'),
};

describe('email_security runner (the real mailscan CLI against a loopback DNS server)', () => {
  let dns: TestDnsServer;
  let bin: string;
  let service: TestService;
  let token: string;

  beforeAll(async () => {
    dns = await startDnsServer({
      zoneDir,
      zones: [
        renamed('good.test', 'goodmail.com'),
        renamed('bare.test', 'baremail.com'),
        renamed('slow.test', 'slowmail.com'),
        { text: '@ IN SOA ns.nic.net. hostmaster.nic.net. ( 1 3600 600 86400 300 )', origin: 'net' },
        exampleTest,
      ],
    });
    bin = await buildCli();
    const env = { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_ALLOW_PRIVATE: '1' };
    service = await startTestService({ runners: new Map([['email_security', makeMailscanRunner({ bin, env })]]) });
  });
  afterAll(async () => {
    await service.stop();
    await dns.close();
  });
  beforeEach(async () => {
    token = await service.token(freshTenant('mail'), 'operator');
  });

  async function scanOf(target: string, scope: Record<string, unknown> = {}) {
    const { body: queued } = await service.call('/api/scans/', {
      method: 'POST',
      token,
      body: { scan_type: 'email_security', target, scope },
    });
    await service.runtime.drain();
    const scan = (await service.call(`/api/scans/${queued.id}/`, { token })).body;
    const findings = (await service.call(`/api/findings/?scan_id=${queued.id}`, { token })).body.items;
    return { scan, findings };
  }

  it('reports a clean domain as succeeded with its score and grade in the summary', async () => {
    const { scan, findings } = await scanOf('goodmail.com', { reputation: false });

    expect(scan).toMatchObject({ status: 'succeeded', finding_count: 0, errors: [], summary: { score: 100, grade: 'A' } });
    expect(findings).toEqual([]);
    // Every passing check says why; the log says what was asked in words, with no server path or CLI flag.
    expectPassesSayWhy(scan.checks);
    expect(scan.checks.find((check: { id: string }) => check.id === 'mailscan.spf.missing').detail).toMatch(/^SPF record read: v=spf1/);
    const log = (await service.call(`/api/scans/${scan.id}/log/`, { token })).body.items;
    const text = JSON.stringify(log);
    expect(text).not.toContain(tmpdir());
    expect(text).not.toMatch(/\/tmp\/|--format|--timeout|--no-reputation/);
    expect(log.find((line: { message: string }) => line.message === 'mailscan started').fields).toMatchObject({
      target: 'goodmail.com',
      options: ['reputation'],
    });
  });

  it('scans a subdomain in a private TLD, whose DMARC falls back to the organizational domain', async () => {
    const { scan, findings } = await scanOf('Mail.OrgDmarc.test.', { reputation: false });

    expect(scan).toMatchObject({ status: 'succeeded', target: 'mail.orgdmarc.test', errors: [] });
    // orgdmarc.test publishes DMARC (p=reject; sp=quarantine), mail.orgdmarc.test none: no dmarc finding.
    expect(findings.map((f: { rule_id: string }) => f.rule_id)).toEqual(['mailscan.dkim.not_found']);
  });

  it('scans mail.example.test with reputation on: it succeeds and its DMARC policy comes from example.test', async () => {
    const { scan, findings } = await scanOf('mail.example.test');

    expect(scan).toMatchObject({ status: 'succeeded', target: 'mail.example.test', errors: [] });
    expect(findings.map((f: { rule_id: string }) => f.rule_id).sort()).toEqual([
      'mailscan.dkim.not_found',
      'mailscan.dmarc.policy_none',
      'mailscan.dnssec.unsigned',
    ]);
    expect(findings.find((f: { rule_id: string }) => f.rule_id === 'mailscan.dmarc.policy_none').evidence).toMatchObject({
      domain: 'mail.example.test',
      record_domain: 'example.test',
      policy: 'none',
    });
  });

  it('reports a configured list without a table answering 127.255.255.254 as an error, not a listing', async () => {
    const configured = await startTestService({
      runners: new Map([
        [
          'email_security',
          makeMailscanRunner({
            bin,
            env: {
              PATH: process.env.PATH,
              MAILSCAN_NAMESERVERS: dns.address,
              MAILSCAN_ALLOW_PRIVATE: '1',
              MAILSCAN_CONFIG: 'test/fixtures/mailscan/config/unknown-lists.json',
            },
          }),
        ],
      ]),
    });
    try {
      const operator = await configured.token('mail', 'operator');
      const { body: queued } = await configured.call('/api/scans/', {
        method: 'POST',
        token: operator,
        body: { scan_type: 'email_security', target: 'rep-refused.test' },
      });
      await configured.runtime.drain();
      const scan = (await configured.call(`/api/scans/${queued.id}/`, { token: operator })).body;
      const findings = (await configured.call(`/api/findings/?scan_id=${queued.id}`, { token: operator })).body.items;

      expect(findings.map((f: { rule_id: string }) => f.rule_id)).not.toContain('mailscan.dnsbl.listed');
      expect(scan.errors).toContainEqual({
        runner: 'mailscan',
        message:
          'rep-refused.test: reputation/dnsbl: bl.rep-unknown.test 203.0.113.202: 127.255.255.254: query refused (127.255.255.0/24 is reserved for errors)',
      });
    } finally {
      await configured.stop();
    }
  });

  it('stores the posture findings of a bare domain with the catalogue rule ids', async () => {
    const { scan, findings } = await scanOf('baremail.com', { reputation: false });

    expect(scan.status).toBe('succeeded');
    expect(findings.map((f: { rule_id: string }) => f.rule_id).sort()).toEqual([
      'mailscan.dkim.not_found',
      'mailscan.dmarc.missing',
      'mailscan.spf.missing',
    ]);
    expect(findings.find((f: { rule_id: string }) => f.rule_id === 'mailscan.spf.missing')).toMatchObject({
      severity: 'high',
      target: 'baremail.com',
      scan_type: 'email_security',
    });
    expect(scan.summary).toMatchObject({ high: 2, medium: 1 });
  });

  it('fails the job when mailscan cannot start the scan (exit 3)', async () => {
    const { scan } = await scanOf('nowhere-at-all.com', { reputation: false });

    expect(scan.status).toBe('failed');
    expect(scan.errors[0]).toMatchObject({
      runner: 'mailscan',
      message: expect.stringContaining('mailscan could not scan nowhere-at-all.com'),
    });
  });

  it('fails the job for a domain that does not exist, saying so, with no findings', async () => {
    const { scan, findings } = await scanOf('typomail.net', { reputation: false });

    expect(scan).toMatchObject({ status: 'failed', finding_count: 0 });
    expect(scan.errors).toEqual([{ runner: 'mailscan', message: expect.stringContaining('typomail.net does not exist (NXDOMAIN)') }]);
    expect(findings).toEqual([]);
  });

  it('ends partial when checks error but findings came back', async () => {
    dns.behave('_dmarc.baremail.com', { drop: true });
    try {
      const { scan, findings } = await scanOf('baremail.com', { reputation: false });

      expect(scan.status).toBe('partial');
      expect(findings.length).toBeGreaterThan(0);
      expect(scan.errors.some((e: { message: string }) => e.message.includes('dmarc'))).toBe(true);
    } finally {
      dns.reset();
    }
  });

  it('maps the scope to flags and passes only MAILSCAN_* variables, so keys never reach argv', () => {
    const args = mailscanArgs('example.com', { reputation: false, dkim_selectors: ['s1', 's2'], source_legacy_id: 4 }, 60_000);
    const env = mailscanEnv({ PATH: '/bin', MAILSCAN_THREATINTEL_KEY: 'secret', AWS_SECRET_ACCESS_KEY: 'aws', SESSION: 'x' });

    expect(args).toEqual([
      'scan',
      '--format=json',
      '--timeout=55',
      '--no-reputation',
      '--dkim-selector=s1',
      '--dkim-selector=s2',
      '--',
      'example.com',
    ]);
    expect(args.join(' ')).not.toContain('secret');
    expect(env).toEqual({ PATH: '/bin', MAILSCAN_THREATINTEL_KEY: 'secret' });
  });

  it('attaches every value to its flag and puts the target after --, so nothing is read as an option', () => {
    const rua = 'art_01J0000000000000000000000A';
    const header = 'art_01J0000000000000000000000B';
    // Even a path that looks like an option stays a value: the CLI's own parser reads it so.
    const artifactPaths = { rua: ['-h', '/run/a/rua-0.xml'], header: '--config=/etc/passwd' };
    const args = mailscanArgs('example.com', { rua: [rua, rua], header, dkim_selectors: ['s1'] }, 60_000, artifactPaths);
    const parsed = parseCliArgs(args);

    expect(args.slice(-2)).toEqual(['--', 'example.com']);
    expect(args).toContain('--rua=-h');
    expect(args).toContain('--eml=--config=/etc/passwd');
    expect(parsed).toMatchObject({
      ok: true,
      command: {
        kind: 'scan',
        domain: 'example.com',
        rua: ['-h', '/run/a/rua-0.xml'],
        eml: '--config=/etc/passwd',
        configPath: null,
        dkimSelectors: ['s1'],
      },
    });
    expect(() => mailscanArgs('example.com', { rua: ['--config=/etc/passwd'] }, 60_000, { rua: ['/x'], header: null })).toThrow();
    expect(() => mailscanArgs('example.com', { header: '-h' }, 60_000, { rua: [], header: '/x' })).toThrow();
  });

  it('fails the runner when the report does not parse or the CLI is missing', async () => {
    const { mkdtemp, writeFile, chmod } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'fake-mailscan-'));
    const garbage = join(dir, 'mailscan');
    await writeFile(garbage, 'process.stdout.write("{not json");\n');
    await chmod(garbage, 0o755);
    const input = {
      tenant: 'acme',
      scanType: 'email_security' as const,
      target: 'example.com',
      scope: {},
      signal: new AbortController().signal,
      timeoutMs: 30_000,
      logger: silentLogger,
    };

    await expect(makeMailscanRunner({ bin: garbage, env: {} }).run(input)).rejects.toThrow('a report that does not parse');
    await expect(makeMailscanRunner({ bin: join(dir, 'absent'), env: {} }).run(input)).rejects.toThrow('mailscan exited 1');
  });

  it("stops the CLI when the engine's time runs out", async () => {
    const runner = makeMailscanRunner({ bin, env: { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address } });
    const controller = new AbortController();
    dns.behave('slowmail.com', { delayMs: 5_000 });
    try {
      const run = runner.run({
        tenant: 'acme',
        scanType: 'email_security',
        target: 'slowmail.com',
        scope: { reputation: false },
        signal: controller.signal,
        timeoutMs: 60_000,
        logger: silentLogger,
      });
      setTimeout(() => controller.abort(), 300);

      await expect(run).rejects.toThrow('ran out of time');
    } finally {
      dns.reset();
    }
  });
});
