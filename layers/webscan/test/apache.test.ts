/**
 * webscan against Debian apache2 on loopback (DESIGN §17): ServerTokens, TraceEnable, Indexes,
 * mod_status, Subversion and Mercurial metadata, a credentialed CORS answer to the null origin,
 * each set and unset, with nmap's http NSE scripts and wapiti as references on the same servers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineReport } from '../../../lib/report.ts';
import { startApacheFixture, type ApacheFixture } from './helpers/apache-fixture.ts';
import { nmapVerdicts, runNmapScripts } from './helpers/nmap.ts';
import { failed, runWebscan, statuses } from './helpers/run.ts';
import { OVERLAP, explainedDifference, ruleOfWapiti, runWapiti } from './helpers/wapiti.ts';

const portOf = (url: string): number => Number(new URL(url).port);

describe('webscan on apache2', () => {
  let fixture: ApacheFixture;
  let bad: EngineReport;
  let good: EngineReport;

  beforeAll(async () => {
    fixture = await startApacheFixture();
    const runs = await Promise.all([runWebscan(fixture.bad, { rate: 20 }), runWebscan(fixture.good, { rate: 20 })]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    [bad, good] = runs.map((run) => run.report!);
  });
  afterAll(async () => {
    await Promise.all(fixture?.servers.map((server) => server.stop()) ?? []);
  });

  it('reports ServerTokens Full, TraceEnable On, Indexes, mod_status, VCS metadata and the null-origin CORS', () => {
    expect(bad.status).toBe('ok');
    expect(failed(bad)).toEqual([
      'web.cookie.no_httponly',
      'web.cookie.no_samesite',
      'web.cors.permissive',
      'web.disclosure.version_header',
      'web.exposure.directory_listing',
      'web.exposure.status_page',
      'web.exposure.vcs',
      'web.headers.clickjacking',
      'web.headers.csp_missing',
      'web.headers.nosniff_missing',
      'web.headers.referrer_policy_missing',
      'web.methods.trace',
      'web.transport.http_only',
    ]);
    const keys = (rule: string): string[] =>
      bad.findings
        .filter((finding) => finding.rule_id === rule)
        .map((finding) => finding.fingerprint_key)
        .sort();
    expect(keys('web.exposure.vcs')).toEqual(['/.hg/requires', '/.svn/entries']);
    expect(keys('web.exposure.status_page')).toEqual(['/server-status']);
    expect(keys('web.exposure.directory_listing')).toEqual(['/docs/']);
    expect(bad.findings.find((finding) => finding.rule_id === 'web.disclosure.version_header')!.evidence.value).toMatch(
      /^Apache\/2\.4\.\d+ \(Debian\)/,
    );
  });

  it('passes the same checks on ServerTokens Prod, TraceEnable Off and -Indexes', () => {
    expect(good.status).toBe('ok');
    expect(failed(good)).toEqual(['web.transport.http_only']);
    const status = statuses(good);
    for (const rule of [
      'web.methods.trace',
      'web.exposure.directory_listing',
      'web.exposure.status_page',
      'web.exposure.vcs',
      'web.disclosure.version_header',
    ])
      expect(status[rule]).toBe('pass');
  });

  it('agrees with nmap and wapiti rule by rule', async () => {
    const [scripts, wapitiBad, wapitiGood] = await Promise.all([
      runNmapScripts([portOf(fixture.bad), portOf(fixture.good)]),
      runWapiti(fixture.bad),
      runWapiti(fixture.good),
    ]);
    const disagreements: string[] = [];
    const explained: string[] = [];
    for (const [target, report, wapiti] of [
      [fixture.bad, bad, wapitiBad],
      [fixture.good, good, wapitiGood],
    ] as const) {
      const status = statuses(report);
      const nmap = nmapVerdicts(scripts.get(portOf(target))!, false);
      for (const [rule, nmapFires] of Object.entries(nmap)) {
        if (nmapFires === (status[rule] === 'fail')) continue;
        // http-git looks for Git only; webscan's vcs rule also covers Subversion and Mercurial.
        const vcsPaths = report.findings.filter((finding) => finding.rule_id === rule).map((finding) => finding.fingerprint_key);
        const notGit = rule === 'web.exposure.vcs' && !nmapFires && vcsPaths.every((path) => !path.startsWith('/.git/'));
        (notGit ? explained : disagreements).push(`${rule}: nmap ${nmapFires}, webscan ${status[rule]}`);
      }
      const wapitiRules = new Set(wapiti.map(ruleOfWapiti));
      for (const rule of OVERLAP) {
        const wapitiFires = wapitiRules.has(rule);
        if (wapitiFires === (status[rule] === 'fail')) continue;
        const why = explainedDifference(rule, target, wapitiFires, status[rule]);
        (why ? explained : disagreements).push(`${rule}: wapiti ${wapitiFires}, webscan ${status[rule]}`);
      }
    }
    expect(disagreements).toEqual([]);
    expect(explained.map((line) => line.split(':')[0]).sort()).toEqual([
      'web.cookie.no_secure',
      'web.cookie.no_secure',
      'web.exposure.vcs',
      'web.headers.hsts_missing',
      'web.headers.hsts_missing',
    ]);
  }, 60_000);

  it('sends no method but GET, HEAD, OPTIONS and the one TRACE', async () => {
    const entries = (await Promise.all(fixture.servers.map((server) => server.accessLog())))
      .flat()
      .filter((entry) => entry.userAgent.startsWith('webscan/'));
    expect(entries.length).toBeGreaterThan(50);
    expect([...new Set(entries.map((entry) => entry.method))].sort()).toEqual(['GET', 'OPTIONS', 'TRACE']);
    expect(entries.filter((entry) => entry.method === 'TRACE').map((entry) => entry.uri)).toEqual(['/', '/']);
  });
});
