import { describe, expect, it } from 'vitest';
import { runCli, scan } from '../helpers/cli.ts';
import { serveFixtureZones } from '../helpers/zone-server.ts';

const FAST_DNS = ['--config', 'test/fixtures/mailscan/config/fast-dns.json'];

describe('mailscan scan: DNS that does not answer', () => {
  const dns = serveFixtureZones();

  it('reports a DMARC lookup that times out as unknown, not as a missing record', async () => {
    dns().behave('_dmarc.slow.test', { drop: true });

    const { report } = await scan('slow.test', dns().address, ['--no-reputation', ...FAST_DNS]);

    expect(report.surfaces.posture.dmarc.status).toBe('temperror');
    expect(report.findings.map((item) => item.rule_id)).not.toContain('mailscan.dmarc.missing');
    expect(report.errors).toEqual([expect.objectContaining({ surface: 'posture', check: 'dmarc' })]);
    expect(report.errors[0].message).toContain('_dmarc.slow.test');
    expect(report.surfaces.posture).toMatchObject({ status: 'error', score: null, grade: null });
  });

  it('does not report DKIM as missing when a selector probe fails', async () => {
    dns().behave('selector1._domainkey.slow.test', { rcode: 'SERVFAIL' });

    const { report } = await scan('slow.test', dns().address, ['--no-reputation', ...FAST_DNS]);

    expect(report.surfaces.posture.dkim).toMatchObject({ status: 'temperror', unknown_selectors: ['selector1'] });
    expect(report.findings.map((item) => item.rule_id)).not.toContain('mailscan.dkim.not_found');
    expect(report.errors).toEqual([expect.objectContaining({ surface: 'posture', check: 'dkim' })]);
  });

  it('exits 3 with nothing on stdout when no question about the domain gets an answer', async () => {
    for (const [name, type] of [
      ['dead.test', 'TXT'],
      ['dead.test', 'MX'],
      ['_dmarc.dead.test', 'TXT'],
    ] as const)
      dns().behave(name, { drop: true }, type);

    const run = await runCli(['scan', 'dead.test', '--nameserver', dns().address, '--no-reputation', ...FAST_DNS]);

    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.diagnostics.at(-1)).toMatchObject({ level: 'error', event: 'could not start', target: 'dead.test' });
  });

  it('prints the report at the deadline with the checks still waiting listed as errors', async () => {
    dns().behave('default._domainkey.slow.test', { delayMs: 15_000 });

    const started = performance.now();
    const { report } = await scan('slow.test', dns().address, [
      '--no-reputation',
      '--timeout',
      '1',
      '--config',
      'test/fixtures/mailscan/config/slow-dns.json',
    ]);

    expect(performance.now() - started).toBeLessThan(5_000);
    expect(report.surfaces.posture.dkim.status).toBe('temperror');
    expect(report.errors).toEqual([expect.objectContaining({ check: 'dkim', message: expect.stringContaining('scan deadline reached') })]);
    expect(report.surfaces.posture.spf.status).toBe('ok');
  });

  it('takes its nameservers and config from MAILSCAN_NAMESERVERS and MAILSCAN_CONFIG', async () => {
    const run = await runCli(['scan', 'dkimcustom.test', '--no-reputation'], {
      MAILSCAN_NAMESERVERS: dns().address,
      MAILSCAN_CONFIG: 'test/fixtures/mailscan/config/custom-selectors.json',
    });

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).surfaces.posture.dkim.selectors_probed).toBe(1);
  });
});
