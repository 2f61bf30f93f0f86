import { tmpdir } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import mailscan from '../../layers/mailscan/manifest.ts';
import { runnerOf } from '../../shared/adapters/runners/engine-registry.ts';
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
    const env = { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_ALLOW_LOOPBACK: '1' };
    service = await startTestService({ runners: new Map([['email_security', runnerOf(mailscan, { bin, env })]]) });
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
    expect(scan.checks.find((check: { id: string }) => check.id === 'mailscan.spf.missing').detail).toMatch(
      /^SPF record at goodmail\.com: v=spf1/,
    );
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
          runnerOf(mailscan, {
            bin,
            env: {
              PATH: process.env.PATH,
              MAILSCAN_NAMESERVERS: dns.address,
              MAILSCAN_ALLOW_LOOPBACK: '1',
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
        target: 'rep-refused.test',
        check: 'dnsbl',
        message:
          'rep-refused.test: dnsbl: bl.rep-unknown.test 203.0.113.202: 127.255.255.254: query refused (127.255.255.0/24 is reserved for errors)',
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

  it('writes the scope to a file, passes only MAILSCAN_* variables and puts the target after --, so keys never reach argv', async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const envFile = join(await mkdtemp(join(tmpdir(), 'fake-mailscan-')), 'env.json');
    const runner = runnerOf(mailscan, {
      bin: join(import.meta.dirname, '../fixtures/mailscan-fake/record-env.ts'),
      env: {
        PATH: '/bin',
        MAILSCAN_THREATINTEL_KEY: 'secret',
        MAILSCAN_TEST_ENV_FILE: envFile,
        AWS_SECRET_ACCESS_KEY: 'aws',
        SESSION: 'x',
      },
    });

    const result = await runner.run({
      tenant: 'acme',
      scanType: 'email_security',
      target: 'example.com',
      scope: { reputation: false, dkim_selectors: ['s1', 's2'] },
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      logger: silentLogger,
    });
    const seen = JSON.parse(await readFile(envFile, 'utf8')) as { env: Record<string, string>; argv: string[]; scope: unknown };

    expect(seen.argv).toEqual([
      'scan',
      expect.stringMatching(/^--scope-json=\/.+\/scope\.json$/),
      '--timeout=55',
      '--format=json',
      '--',
      'example.com',
    ]);
    expect(seen.scope).toEqual({ reputation: false, dkim_selectors: ['s1', 's2'] });
    expect(seen.argv.join(' ')).not.toContain('secret');
    expect(
      Object.keys(seen.env)
        .filter((name) => !name.startsWith('MAILSCAN_'))
        .sort(),
    ).toEqual(['PATH']);
    expect(seen.env.MAILSCAN_THREATINTEL_KEY).toBe('secret');
    expect(result.summary).toEqual({ score: 100, grade: 'A' });
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

    await expect(runnerOf(mailscan, { bin: garbage, env: {} }).run(input)).rejects.toThrow('a report that does not parse');
    await expect(runnerOf(mailscan, { bin: join(dir, 'absent'), env: {} }).run(input)).rejects.toThrow('mailscan exited 1');
  });

  it("stops the CLI when the engine's time runs out", async () => {
    const runner = runnerOf(mailscan, { bin, env: { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address } });
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
