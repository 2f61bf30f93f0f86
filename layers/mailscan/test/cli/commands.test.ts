import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kitRules } from '../../src/catalogue.ts';
import { buildCli, runCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

describe('mailscan commands and usage errors', () => {
  let dns: TestDnsServer;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('prints its version', async () => {
    const run = await runCli(['--version']);

    expect(run).toMatchObject({ code: 0, stdout: 'mailscan 0.1.0\n', stderr: '' });
  });

  it("prints the whole finding catalogue in the kit's Rule shape, the surface a tag", async () => {
    const run = await runCli(['rules']);

    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { scanner: unknown; rules: { rule_id: string; tags: string[] }[] };
    expect(printed).toEqual({ scanner: { name: 'mailscan', version: '0.1.0' }, rules: JSON.parse(JSON.stringify(kitRules())) });
    expect(printed.rules.find((rule) => rule.rule_id === 'mailscan.spf.missing')?.tags).toContain('surface:posture');
  });

  it.concurrent.each([
    [[], 'no command'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['scan'], 'scan takes exactly one target'],
    [['scan', 'a.test', 'b.test'], 'scan takes exactly one target'],
    [['scan', '192.0.2.1'], 'is not a domain name'],
    [['scan', 'https://a.test/'], 'is not a domain name'],
    [['scan', 'localhost'], 'is not a domain name'],
    [['scan', 'a.test', '--colour'], "Unknown option '--colour'"],
    [['scan', 'a.test', '--format', 'xml'], '--format must be json or text'],
    [['scan', 'a.test', '--timeout', 'soon'], '--timeout must be'],
    [['scan', 'a.test', '--timeout', '0'], '--timeout must be'],
    [['scan', 'a.test', '--dkim-selector', 'bad selector'], 'dkim_selectors.0: include "bad selector", which is not a selector'],
    [['scan', 'a.test', '--nameserver', 'dns.example.com'], 'nameservers must be'],
    [['scan', 'a.test', '--technique', 'T1566'], 'techniques.0: Invalid option'],
    [['scan', 'a.test', '--technique', 'T1598', '--no-reputation'], 'techniques need the reputation surface'],
    [['scan', 'a.test', '--rua='], 'rua.0: Too small'],
    [['scan', 'a.test', '--eml='], 'header: Too small'],
    [
      ['scan', 'a.test', '--config', 'test/fixtures/mailscan/config/missing.json'],
      'the config file test/fixtures/mailscan/config/missing.json cannot be read: ENOENT',
    ],
    [['scan', 'a.test', '--config', 'test/fixtures/mailscan/config/invalid.json'], 'dnsbl.ip_zones'],
    [['scan', 'a.test', '--config', 'test/fixtures/mailscan/config/unknown-key.json'], 'colour'],
    [['rules', 'extra'], 'rules takes no arguments'],
    [
      ['scan', 'a.test', '--scope-json', 'test/fixtures/mailscan/config/fast-dns.json', '--leak'],
      '--leak cannot be given with --scope-json',
    ],
    [
      ['scan', 'a.test', '--scope-json', 'test/fixtures/mailscan/config/fast-dns.json'],
      'the scope is not valid: (scope): Unrecognized key: "dns"',
    ],
    [
      ['scan', 'a.test', '--scope-json', 'test/fixtures/mailscan/config/missing.json'],
      'the scope file test/fixtures/mailscan/config/missing.json cannot be read: ENOENT',
    ],
  ])('exits 2 for %j', async (args, message) => {
    const run = await runCli(args, { MAILSCAN_NAMESERVERS: '127.0.0.1:9' });

    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.diagnostics).toEqual([
      expect.objectContaining({ level: 'error', event: 'usage error', message: expect.stringContaining(message) }),
    ]);
  });

  it('exits 2 for a malformed reputation setting, and ignores it with --no-reputation', async () => {
    const env = { MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_SPAMHAUS_DQS_KEY: 'not a key!' };

    const withReputation = await runCli(['scan', 'good.test'], env);
    const withoutReputation = await runCli(['scan', 'good.test', '--no-reputation'], env);

    expect(withReputation.code).toBe(2);
    expect(withReputation.diagnostics).toEqual([
      expect.objectContaining({ event: 'usage error', message: expect.stringContaining('MAILSCAN_SPAMHAUS_DQS_KEY') }),
    ]);
    expect(withReputation.stderr).not.toContain('not a key!');
    expect(withoutReputation.code).toBe(0);
  });

  it('scans an internationalised domain by its punycode form', async () => {
    const { report } = await scan('BÜCHER.test.', dns.address, ['--no-reputation']);

    expect(report.domain).toBe('xn--bcher-kva.test');
    expect(report.surfaces.posture.spf.record).toBe('v=spf1 -all');
  });

  it('writes only the report to stdout and JSON lines to stderr', async () => {
    const { run, report } = await scan('good.test', dns.address, ['--no-reputation']);

    expect(report.scanner).toEqual({ name: 'mailscan', version: '0.1.0' });
    expect(run.diagnostics.map((line) => line.event)).toEqual(['scan started', 'posture finished', 'scan finished']);
    expect(report.surfaces).toMatchObject({
      reputation: { status: 'skipped' },
      discover: { status: 'skipped' },
      leak: { status: 'skipped' },
      rua: { status: 'skipped' },
      header: { status: 'skipped' },
    });
    expect(Date.parse(report.finished_at)).toBeGreaterThanOrEqual(Date.parse(report.started_at));
  });

  it('prints a text summary with --format text', async () => {
    const run = await runCli(['scan', 'plusall.test', '--nameserver', dns.address, '--no-reputation', '--format', 'text']);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('mailscan 0.1.0: plusall.test');
    expect(run.stdout).toContain('[HIGH] mailscan.spf.permissive_all');
    expect(run.stdout).toMatch(/^checks: \d+ passed, 3 failed, \d+ errored, \d+ skipped$/m);
  });
});
