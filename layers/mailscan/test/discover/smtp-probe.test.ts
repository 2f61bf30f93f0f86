import { afterEach, describe, expect, it } from 'vitest';
import { probeRecipients, type SmtpProbeConfig } from '../../src/discover/smtp-probe.ts';
import { startSmtpFake, type SmtpFake } from '../helpers/smtp-server.ts';

const servers: SmtpFake[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function fake(options: Parameters<typeof startSmtpFake>[0]): Promise<SmtpFake> {
  const server = await startSmtpFake(options);
  servers.push(server);
  return server;
}

const config = (port: number, overrides: Partial<SmtpProbeConfig> = {}): SmtpProbeConfig => ({
  port,
  helo: 'probe.mailscan.test',
  maxProbes: 20,
  timeoutMs: 2_000,
  pauseMs: 0,
  allowPrivate: false,
  allowLoopback: true,
  ...overrides,
});
const mx = [{ host: 'mx.acme.test', preference: 10, ipv4: ['127.0.0.1'], ipv6: [] }];

describe('SMTP RCPT probing', () => {
  it('tests a random address first, then reports accepted and rejected candidates, and never sends DATA', async () => {
    const server = await fake({ mailboxes: ['jane.roe@acme.test'] });

    const outcome = await probeRecipients('acme.test', mx, ['jane.roe@acme.test', 'nobody@acme.test'], config(server.port));

    expect(outcome.errors).toEqual([]);
    expect(outcome.data.catch_all).toBe(false);
    expect(outcome.data.results).toEqual([
      { address: 'jane.roe@acme.test', state: 'accepted', code: 250, reply: expect.any(String) },
      { address: 'nobody@acme.test', state: 'rejected', code: 550, reply: expect.stringContaining('No such user') },
    ]);
    expect(server.rcpts[0]).toMatch(/^[0-9a-f]{18}@acme\.test$/);
    expect(server.mailFrom).toEqual(['']);
    expect(server.helos).toEqual(['probe.mailscan.test']);
    expect(server.dataAttempts).toBe(0);
    expect(server.connections).toBe(1);
  });

  it('reports a catch-all MX and marks accepted addresses unverifiable', async () => {
    const server = await fake({ catchAll: true });

    const outcome = await probeRecipients('acme.test', mx, ['jane.roe@acme.test'], config(server.port));

    expect(outcome.data.catch_all).toBe(true);
    expect(outcome.data.results?.[0]).toMatchObject({ address: 'jane.roe@acme.test', state: 'unverifiable', code: 250 });
  });

  it('treats greylisting as unknown, never rejected, and the catch-all test as inconclusive', async () => {
    const server = await fake({ greylist: true });

    const outcome = await probeRecipients('acme.test', mx, ['jane.roe@acme.test'], config(server.port));

    expect(outcome.data.catch_all).toBeNull();
    expect(outcome.data.results).toEqual([
      { address: 'jane.roe@acme.test', state: 'unknown', code: 451, reply: expect.stringContaining('Greylisted') },
    ]);
  });

  it('reports a dropped connection as an error with the unasked candidates unknown', async () => {
    const server = await fake({ mailboxes: ['a@acme.test'], dropAfterRcpt: 3 });

    const outcome = await probeRecipients('acme.test', mx, ['a@acme.test', 'b@acme.test', 'c@acme.test'], config(server.port));

    expect(outcome.data.status).toBe('error');
    expect(outcome.errors[0]).toMatch(/closed/);
    expect(outcome.data.catch_all).toBe(false);
    expect(outcome.data.results?.map((result) => [result.address, result.state])).toEqual([
      ['a@acme.test', 'accepted'],
      ['b@acme.test', 'unknown'],
      ['c@acme.test', 'unknown'],
    ]);
  });

  it('stops at max_probes, the random address included', async () => {
    const server = await fake({ catchAll: false });

    const outcome = await probeRecipients(
      'acme.test',
      mx,
      ['a@acme.test', 'b@acme.test', 'c@acme.test'],
      config(server.port, { maxProbes: 2 }),
    );

    expect(server.rcpts).toHaveLength(2);
    expect(outcome.data.results).toHaveLength(1);
    expect(outcome.data.not_probed).toBe(2);
  });

  it.each([
    ['neither setting', { allowPrivate: false, allowLoopback: false }],
    // Before: MAILSCAN_ALLOW_PRIVATE admitted loopback too, so an MX at 127.0.0.1 was probed where private networks are scanned.
    ['only MAILSCAN_ALLOW_PRIVATE', { allowPrivate: true, allowLoopback: false }],
  ])('refuses a loopback MX address with %s and never connects', async (_, policy) => {
    const server = await fake({ catchAll: true });

    const outcome = await probeRecipients('acme.test', mx, ['a@acme.test'], config(server.port, policy));

    expect(outcome.data).toMatchObject({ status: 'error', catch_all: null });
    expect(outcome.errors[0]).toContain('loopback');
    expect(server.connections).toBe(0);
  });

  it('reports a refused port as an error, never as not catch-all', async () => {
    const server = await fake({});
    const { port } = server;
    await server.close();
    servers.length = 0;

    const outcome = await probeRecipients('acme.test', mx, ['a@acme.test'], config(port));

    expect(outcome.data).toMatchObject({ status: 'error', catch_all: null });
    expect(outcome.errors[0]).toMatch(/ECONNREFUSED/);
  });
});
