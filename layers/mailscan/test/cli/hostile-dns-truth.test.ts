import type { Answer, Packet } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { runCli, scan } from '../helpers/cli.ts';
import { serveFixtureZones } from '../helpers/zone-server.ts';

/**
 * Issue 33 item 9: the three hostile DNS inputs still wrong. An answer with opcode NOTIFY is not
 * an answer; a 55 kB SPF record truncated over UDP is read whole over TCP; NXDOMAIN for TXT and MX
 * with SERVFAIL for `_dmarc` ends in a report (DMARC `error`), not exit 3. The built CLI against
 * the fixture zones' DNS server.
 */
const FAST_DNS = ['--no-reputation', '--config', 'test/fixtures/mailscan/config/fast-dns.json'];
const DOMAIN = 'good.test';
const NOTIFY = 4 << 11;
const NXDOMAIN = 3;

/** A TXT record of about 55 kB: an SPF record padded with an unknown modifier (ignored, RFC 7208 §6). */
const HUGE_SPF = `v=spf1 ip4:192.0.2.0/24 x-pad=${'a'.repeat(55_000)} -all`;
const hugeTxt = (): Answer => ({
  name: DOMAIN,
  type: 'TXT',
  class: 'IN',
  ttl: 300,
  data: Array.from({ length: Math.ceil(HUGE_SPF.length / 255) }, (_, i) => HUGE_SPF.slice(i * 255, (i + 1) * 255)),
});

describe('mailscan scan: the hostile DNS inputs of issue 33', () => {
  const dns = serveFixtureZones();

  it('does not read an answer with opcode NOTIFY as the record', async () => {
    dns().behave(
      DOMAIN,
      {
        craft: (reply): Packet => ({
          ...reply,
          flags: (reply.flags ?? 0) | NOTIFY,
          answers: [{ name: DOMAIN, type: 'TXT', class: 'IN', ttl: 300, data: 'v=spf1 +all' }],
        }),
      },
      'TXT',
    );

    const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

    expect(report.surfaces.posture.spf.record).not.toBe('v=spf1 +all');
    expect(report.findings.map((f) => f.rule_id)).not.toContain('mailscan.spf.permissive_all');
    expect(report.surfaces.posture.spf.status).toBe('temperror');
  });

  it('reads a 55 kB SPF record truncated over UDP whole over TCP', async () => {
    dns().behave(
      DOMAIN,
      { truncate: true, craft: (reply, transport) => (transport === 'tcp' ? { ...reply, answers: [hugeTxt()] } : reply) },
      'TXT',
    );

    const { report } = await scan(DOMAIN, dns().address, FAST_DNS);

    expect(report.surfaces.posture.spf).toMatchObject({ record: HUGE_SPF, all: '-all' });
    expect(dns().log.some((entry) => entry.name === DOMAIN && entry.type === 'TXT' && entry.transport === 'tcp')).toBe(true);
  });

  it('reports NXDOMAIN for TXT and MX with SERVFAIL for _dmarc, with the DMARC check error', async () => {
    const nxdomain = { craft: (reply: Packet): Packet => ({ ...reply, flags: ((reply.flags ?? 0) & ~0xf) | NXDOMAIN, answers: [] }) };
    dns().behave(DOMAIN, nxdomain, 'TXT');
    dns().behave(DOMAIN, nxdomain, 'MX');
    dns().behave(`_dmarc.${DOMAIN}`, { rcode: 'SERVFAIL' }, 'TXT');

    const run = await runCli(['scan', DOMAIN, '--nameserver', dns().address, ...FAST_DNS]);

    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      checks: Array<{ id: string; status: string }>;
      surfaces: { posture: { dmarc: { status: string } } };
    };
    expect(report.surfaces.posture.dmarc.status).toBe('temperror');
    // The DMARC record's checks; rua_misalignment is the aggregate-report surface's, not asked for here: skipped, saying so.
    const dmarc = report.checks.filter((check) => check.id.startsWith('mailscan.dmarc.') && check.id !== 'mailscan.dmarc.rua_misalignment');
    expect(dmarc.map((check) => check.status)).toEqual(['error', 'error']);
    expect(report.checks.find((check) => check.id === 'mailscan.dmarc.rua_misalignment')).toMatchObject({
      status: 'skipped',
      detail: 'not requested',
    });
  });
});
