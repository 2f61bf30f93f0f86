import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report.ts';
import { MAX_SPF_QUERIES } from '../../src/posture/spf/spf-expand.ts';
import { buildCli, runCliWithUsage, scan } from '../helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { serveFixtureZones } from '../helpers/zone-server.ts';
import { amplificationZone } from '../helpers/hostile-inputs.ts';

const FAST_DNS = ['--no-reputation', '--config', 'test/fixtures/mailscan/config/fast-dns.json'];
const MIB = 1024 * 1024;
const run = promisify(execFile);
const pyspfHelper = fileURLToPath(new URL('../helpers/pyspf.py', import.meta.url));
type Spf = Report['surfaces']['posture']['spf'] & {
  all_known: boolean;
  loops: string[];
  permerrors: string[];
  void_lookups_by_family: { ipv4: number; ipv6: number };
  void_lookup_limit: number;
  expansion_truncated: boolean;
};
const spfOf = (report: Report) => report.surfaces.posture.spf as Spf;
const ruleIds = (report: Report) => report.findings.map((item) => item.rule_id);

describe('mailscan scan: RFC 7208 edge cases', () => {
  const dns = serveFixtureZones();

  describe('a redirect= that cannot be evaluated says nothing about the all term', () => {
    it.each([
      ['SERVFAIL', { rcode: 'SERVFAIL' as const }],
      ['a timeout', { drop: true }],
    ])('reports a redirect target answering %s as a temperror, not "no all term"', async (_, behaviour) => {
      dns().behave('_spf.redirfail.test', behaviour, 'TXT');

      const { report } = await scan('redirfail.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ status: 'temperror', all: null, all_known: false });
      expect(ruleIds(report)).not.toContain('mailscan.spf.permissive_all');
      expect(report.errors).toContainEqual(
        expect.objectContaining({ check: 'spf', message: expect.stringContaining('_spf.redirfail.test') }),
      );
      expect(report.surfaces.posture.score).toBeNull();
    });

    it('reports a redirect through a macro that needs the message as unknown, not "no all term"', async () => {
      const { report } = await scan('redirmacro.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ all: null, all_known: false });
      expect(ruleIds(report)).not.toContain('mailscan.spf.permissive_all');
      expect(report.surfaces.posture.score_breakdown).toMatchObject({ spf: null });
    });

    it('still reports a redirect chain that ends without an all term', async () => {
      const { report } = await scan('noall.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ all: null, all_known: true });
      expect(ruleIds(report)).toContain('mailscan.spf.permissive_all');
    });
  });

  describe('lookup and void-lookup counting', () => {
    it('does not evaluate, query or count the terms after all (§5.1)', async () => {
      const { report } = await scan('afterall.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ status: 'ok', lookups: 0, void_lookups: 0, all: '-all' });
      expect(dns().log.filter((entry) => /^h\d+\.afterall\.test$/.test(entry.name))).toEqual([]);
    });

    it('expands %{d} in include: to the checked domain and counts the lookups behind it (§7.3)', async () => {
      const { report } = await scan('dmacro.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ status: 'permerror', lookups: 12 });
      expect(spfOf(report).tree).toMatchObject({ terms: [{ term: 'include:_spf.%{d}', expanded: '_spf.dmacro.test', lookups: 12 }, {}] });
    });

    it('expands %{d} in redirect= and takes the all term from its target', async () => {
      const { report } = await scan('dredirect.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ status: 'ok', lookups: 1, all: '?all', all_known: true });
      expect(report.findings).toContainEqual(expect.objectContaining({ rule_id: 'mailscan.spf.permissive_all', severity: 'medium' }));
    });

    it('counts void lookups per sender family and reports the worse one', async () => {
      const { report } = await scan('v6only.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ status: 'permerror', void_lookups: 3, void_lookups_by_family: { ipv4: 3, ipv6: 0 } });
      expect(report.findings).toContainEqual(
        expect.objectContaining({ rule_id: 'mailscan.spf.void_lookup_limit', evidence: expect.objectContaining({ family: 'ipv4' }) }),
      );
    });

    // Issue 33 item 8: the record's status is what an IPv4 sender gets; an IPv6-only void problem is its own evidence and finding.
    it('reports a record whose hosts have A but no AAAA as an IPv4 sender sees it, with the IPv6 voids beside it', async () => {
      const { report } = await scan('v4only.test', dns().address, FAST_DNS);

      expect(spfOf(report)).toMatchObject({ status: 'ok', all: '-all', void_lookups_by_family: { ipv4: 0, ipv6: 3 } });
      expect(spfOf(report).permerrors).toEqual([]);
      expect(report.findings).toContainEqual(
        expect.objectContaining({ rule_id: 'mailscan.spf.void_lookup_limit', evidence: expect.objectContaining({ family: 'ipv6' }) }),
      );
    });
  });

  /**
   * pyspf's check_host() for a sender that no mechanism matches, from an IPv4 and an IPv6 address,
   * against what mailscan's report predicts for that family. Every disagreement fails the test with
   * both sides; none is expected, so there is no list of explained ones.
   */
  describe('agrees with pyspf', () => {
    const SENDERS = { ipv4: '198.51.100.200', ipv6: '2001:db9::1' } as const;
    const DOMAINS = [
      'good.test',
      'redirect.test',
      'noall.test',
      'plusall.test',
      'qall.test',
      'twospf.test',
      'ten.test',
      'eleven.test',
      'voids.test',
      'twovoids.test',
      'loop.test',
      'macro.test',
      'afterall.test',
      'dmacro.test',
      'dredirect.test',
      'v6only.test',
      'v4only.test',
      'mxv4only.test',
    ];
    const RESULT_OF_ALL: Record<string, string> = { '-all': 'fail', '~all': 'softfail', '?all': 'neutral', '+all': 'pass' };

    /**
     * The check_host() result a receiver gets for a sender no mechanism matches, read off the report:
     * for an IPv4 sender, the record's status as reported (it is an IPv4 sender's); for an IPv6
     * sender, the same but for the void lookups, which are counted per family.
     */
    const predicted = (spf: Spf, family: 'ipv4' | 'ipv6'): string => {
      if (spf.status === 'none' || spf.status === 'temperror') return spf.status;
      if (family === 'ipv4' && spf.status === 'permerror') return 'permerror';
      const otherPermerrors = spf.permerrors.filter((message) => !/void lookups for/.test(message));
      if (family === 'ipv6' && (otherPermerrors.length > 0 || spf.void_lookups_by_family.ipv6 > spf.void_lookup_limit)) return 'permerror';
      if (!spf.all_known) return 'unknown';
      return spf.all === null ? 'neutral' : (RESULT_OF_ALL[spf.all] ?? 'unknown');
    };

    it.skipIf(!pyspfAvailable())(
      'predicts pyspf check_host() for IPv4 and IPv6 senders (skipped without python3-spf)',
      async () => {
        const compare = async (domain: string) => {
          const [{ report }, reference] = await Promise.all([
            scan(domain, dns().address, ['--no-reputation']),
            run('/usr/bin/python3', [pyspfHelper, String(dns().port), domain, SENDERS.ipv4, SENDERS.ipv6]),
          ]);
          const pyspf = JSON.parse(reference.stdout) as Record<string, { result: string; explanation: string }>;
          return (['ipv4', 'ipv6'] as const).flatMap((family) => {
            const ours = predicted(spfOf(report), family);
            const theirs = pyspf[SENDERS[family]];
            return ours === theirs.result
              ? []
              : [
                  `${domain} ${family}: mailscan ${ours} (${JSON.stringify(spfOf(report).permerrors)}), pyspf ${theirs.result} (${theirs.explanation})`,
                ];
          });
        };
        // Four at a time: sixteen CLI and Python processes at once would time out on a loaded machine.
        const disagreements: string[] = [];
        for (let i = 0; i < DOMAINS.length; i += 4) disagreements.push(...(await Promise.all(DOMAINS.slice(i, i + 4).map(compare))).flat());

        const agreeing = (family: string) => DOMAINS.length - disagreements.filter((line) => line.includes(` ${family}: `)).length;
        console.info(
          `pyspf differential: IPv4 ${agreeing('ipv4')}/${DOMAINS.length} trees agree, IPv6 ${agreeing('ipv6')}/${DOMAINS.length}`,
        );
        expect(disagreements).toEqual([]);
      },
      120_000,
    );
  });
});

describe('mailscan scan: SPF amplification', () => {
  // 99 includes of 1,000 `a:` terms each: a receiver stops at the 11th lookup, the scan must too.
  let dns: TestDnsServer;

  beforeAll(async () => {
    [dns] = await Promise.all([startDnsServer({ zones: [{ text: amplificationZone(), origin: 'amplify.test' }] }), buildCli()]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it('stays within its query budget and 256 MB, and still reports the record over the limit', async () => {
    const { run: result, peakRssBytes } = await runCliWithUsage(['scan', 'amplify.test', '--nameserver', dns.address, '--no-reputation']);

    expect(result.code, result.stderr).toBe(0);
    const spf = spfOf(JSON.parse(result.stdout) as Report);
    expect(spf).toMatchObject({ status: 'permerror', expansion_truncated: true });
    expect(spf.lookups).toBeGreaterThan(10);
    // The questions only SPF asks: an include's TXT and its a terms' A/AAAA (not posture's own questions).
    const spfQueries = dns.log.filter((entry) => entry.transport === 'udp' && /(^|\.)i\d+\.amplify\.test$/.test(entry.name));
    expect(spfQueries.length).toBeLessThanOrEqual(MAX_SPF_QUERIES);
    expect(peakRssBytes).toBeLessThan(256 * MIB);
  }, 60_000);
});

function pyspfAvailable(): boolean {
  const available = spawnSync('/usr/bin/python3', ['-c', 'import spf, dns.resolver']).status === 0;
  if (!available) console.warn('skipping the pyspf differential test: /usr/bin/python3 cannot import spf (Debian python3-spf)');
  return available;
}
