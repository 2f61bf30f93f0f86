import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSchema } from '../../src/report.ts';
import { buildCli, runCli } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';

const FAST_DNS = ['--config', 'test/fixtures/mailscan/config/fast-dns.json'];
const ruaReport = fileURLToPath(new URL('../../../../test/fixtures/mailscan/rua/google.xml', import.meta.url));
const message = fileURLToPath(new URL('../../../../test/fixtures/mailscan/header/received-anomalies.eml', import.meta.url));

/** A loopback UDP port nothing listens on: bound, read back, released. */
async function closedPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/**
 * A resolver that is down, or that answers NXDOMAIN for everything, is not a domain that does not
 * exist: the scan fails naming the resolver, and the offline surfaces still report.
 */
describe('mailscan scan: a dead resolver is not a dead domain', () => {
  let lying: TestDnsServer;
  let unreachable: string;

  beforeAll(async () => {
    // No zone at all, NXDOMAIN for every name: a resolver whose upstream is gone, answering anyway.
    [lying, unreachable] = await Promise.all([
      startDnsServer({ outOfZone: 'NXDOMAIN' }),
      closedPort().then((port) => `127.0.0.1:${port}`),
      buildCli(),
    ]);
  });
  afterAll(async () => {
    await lying.close();
  });

  it('fails, naming the resolver, when it answers NXDOMAIN even for the root zone', async () => {
    const run = await runCli(['scan', 'example.com', '--nameserver', lying.address, '--no-reputation', ...FAST_DNS]);

    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.diagnostics.at(-1)).toMatchObject({
      event: 'could not start',
      message: expect.stringMatching(new RegExp(`resolver ${lying.address} is not resolving: .*NXDOMAIN for the root zone`)),
    });
  });

  it('fails, naming the resolver, when it is unreachable', async () => {
    const run = await runCli(['scan', 'example.com', '--nameserver', unreachable, '--no-reputation', ...FAST_DNS]);

    expect(run.code).toBe(3);
    expect(run.diagnostics.at(-1)).toMatchObject({
      event: 'could not start',
      message: expect.stringMatching(new RegExp(`resolver ${unreachable} is unreachable or not resolving: .*unreachable`)),
    });
  });

  it.each([
    ['unreachable', () => unreachable],
    ['answering NXDOMAIN for everything', () => lying.address],
  ])('still reads the uploaded aggregate report and message when the resolver is %s', async (_, nameserver) => {
    const run = await runCli(['scan', 'good.test', '--nameserver', nameserver(), '--rua', ruaReport, '--eml', message, ...FAST_DNS]);

    expect(run.code, run.stderr).toBe(0);
    const report = reportSchema.parse(JSON.parse(run.stdout));
    expect(report.domain_exists).toBeNull();
    expect(report.surfaces.rua).toMatchObject({ status: 'ok', totals: { reports: 1 } });
    expect(report.surfaces.header.status).not.toBe('skipped');
    expect(report.surfaces.posture).toMatchObject({ status: 'error', score: null, spf: { status: 'temperror' } });
    expect(report.surfaces.reputation.status).toBe('error');
    expect(
      report.findings.every((item) => item.rule_id.startsWith('mailscan.dmarc.rua') || item.rule_id.startsWith('mailscan.header')),
    ).toBe(true);
    expect(report.findings.length).toBeGreaterThan(0);
    expect(report.errors[0]).toMatchObject({ surface: 'posture', check: 'dns', message: expect.stringContaining(nameserver()) });
  });
});
