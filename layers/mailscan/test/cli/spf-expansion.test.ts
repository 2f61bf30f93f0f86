import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

describe('mailscan scan: SPF expansion', () => {
  let dns: TestDnsServer;
  const spfOf = async (domain: string) => (await scan(domain, dns.address, ['--no-reputation'])).report.surfaces.posture.spf;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('counts exactly 10 lookups as within the limit', async () => {
    const spf = await spfOf('ten.test');

    expect(spf).toMatchObject({ status: 'ok', lookups: 10, lookup_limit: 10, permerrors: [] });
  });

  it('counts 11 lookups as a permerror and shows what each include spends', async () => {
    const spf = await spfOf('eleven.test');

    expect(spf).toMatchObject({ status: 'permerror', lookups: 11 });
    expect((spf.tree as { terms: { term: string; lookups: number }[] }).terms.map((term) => [term.term, term.lookups])).toEqual([
      ['include:i0.eleven.test', 2],
      ['include:i1.eleven.test', 2],
      ['include:i2.eleven.test', 2],
      ['include:i3.eleven.test', 2],
      ['include:i4.eleven.test', 2],
      ['mx', 1],
      ['-all', 0],
    ]);
  });

  it('reports an include loop with its path', async () => {
    const spf = await spfOf('loop.test');

    expect(spf.status).toBe('permerror');
    expect(spf.loops).toEqual(['loop.test -> a.loop.test -> b.loop.test -> loop.test']);
  });

  it('follows a redirect chain to its all', async () => {
    const spf = await spfOf('redirect.test');

    expect(spf).toMatchObject({ status: 'ok', lookups: 2, all: '-all' });
  });

  it('follows %{d} expanded, counts the macros that need the message, and never queries a macro', async () => {
    dns.reset();

    const spf = await spfOf('macro.test');

    expect(spf).toMatchObject({ lookups: 2, macros: ['include:%{d}._spf.macro.test', 'exists:%{i}._ip.macro.test'] });
    expect(dns.log.filter((entry) => entry.name.includes('%'))).toEqual([]);
    expect(dns.log).toContainEqual(expect.objectContaining({ name: 'macro.test._spf.macro.test', type: 'TXT' }));
  });

  it('still finds the record when the answer is truncated over UDP', async () => {
    dns.reset();
    dns.behave('redirect.test', { truncate: true }, 'TXT');

    const spf = await spfOf('redirect.test');

    expect(spf.record).toBe('v=spf1 redirect=r1.redirect.test');
    expect(dns.log.filter((entry) => entry.name === 'redirect.test' && entry.type === 'TXT').map((entry) => entry.transport)).toEqual([
      'udp',
      'tcp',
    ]);
  });
});
