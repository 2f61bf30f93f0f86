/**
 * sbomscan end to end: the CLI frame against a real Git server (git http-backend) holding the
 * fixture lockfiles and a loopback OSV service holding real OSV records; and the built executable
 * once, as the layer ships it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../lib/report.ts';
import { gitAvailable, startGitServer, type GitServer } from '../../../test/helpers/git-http-server.ts';
import { cachedEngineBuild } from '../../../test/helpers/engine-build-cache.ts';
import { RULE_IDS } from '../src/catalogue.ts';
import { sbomscan } from '../src/engine.ts';
import { covers } from '../../../shared/domain/coverage.ts';
import { startOsvServer, type OsvServer } from './osv-server.ts';
import { FIXTURES, loadTree } from './tree.ts';

const run = promisify(execFile);

describe.skipIf(!gitAvailable())('the sbomscan CLI', () => {
  let git: GitServer;
  let osv: OsvServer;
  let work: string;
  let app: string;

  beforeAll(async () => {
    [git, osv] = await Promise.all([startGitServer(), startOsvServer()]);
    work = await mkdtemp(join(tmpdir(), 'sbomscan-cli-'));
    const repo = await git.repository('acme/app');
    await repo.commit('lockfiles', {
      ...Object.fromEntries(loadTree(join(FIXTURES, 'npm-v3'), 'web/')),
      ...Object.fromEntries(loadTree(join(FIXTURES, 'handwritten', 'maven'), 'java/')),
      ...Object.fromEntries(loadTree(join(FIXTURES, 'cargo'), 'rust/')),
      'tools/package.json': '{"dependencies":{"left-pad":"1.3.0"}}',
      'osv-scanner.toml': '[[IgnoredVulns]]\nid = "CVE-2020-28500"\nreason = "toNumber is never called with user input"\n',
    });
    app = `${git.origin}/acme/app.git`;
  });
  afterAll(async () => {
    await Promise.all([git?.close(), osv?.close()]);
    await rm(work, { recursive: true, force: true });
  });
  beforeEach(() => {
    osv.mode = 'ok';
    osv.queries.length = 0;
  });

  async function scan(
    scope: unknown = {},
    env: Record<string, string> = {},
    target = app,
  ): Promise<{ code: number; report?: EngineReport; stderr: string }> {
    const scopeFile = join(work, `scope-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(scopeFile, JSON.stringify(scope));
    let stdout = '';
    let stderr = '';
    const code = await runEngineCli(sbomscan, ['scan', target, '--scope-json', scopeFile, '--timeout', '20'], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: { SBOMSCAN_ALLOW_LOOPBACK: '1', SBOMSCAN_OSV_URL: osv.url, SBOMSCAN_TMPDIR: work, ...env },
      now: () => new Date('2026-11-28T12:00:00Z'),
    });
    return { code, report: code === 0 ? engineReportSchema().parse(JSON.parse(stdout)) : undefined, stderr };
  }

  const check = (report: EngineReport, id: string) => report.checks.find((c) => c.id === id)!;
  const findings = (report: EngineReport, id: string) => report.findings.filter((f) => f.rule_id === id);

  it('reports every rule of the catalogue, the known vulnerabilities with CVSS severities, and an ignore from osv-scanner.toml', async () => {
    const { code, report } = await scan();
    expect(code).toBe(0);
    expect(report!.checks.map((c) => c.id)).toEqual(RULE_IDS);
    expect(report!.status).toBe('ok');
    const vulns = findings(report!, 'sbom.vuln.known').map((f) => `${f.fingerprint_key} ${f.severity}`);
    expect(vulns.sort()).toEqual([
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1|GHSA-jfh8-c2jp-5v3q critical',
      'pkg:npm/lodash@4.17.20|GHSA-35jh-r3h4-6jhm high',
    ]);
    expect(check(report!, 'sbom.vuln.known').status).toBe('fail');
    // CVE-2020-28500 (GHSA-29mw-wpgm-hmr9) is an alias the repository's osv-scanner.toml ignores, with its reason.
    expect(report!.checks.find((c) => c.id === 'sbom.vuln.known')!.detail).toBe('2 findings');
    expect(findings(report!, 'sbom.lockfile.missing').map((f) => f.fingerprint_key)).toEqual(['tools/package.json']);
    expect(findings(report!, 'sbom.dependency.unpinned').map((f) => f.fingerprint_key)).toEqual(['java/pom.xml|com.google.guava:guava']);
    expect(check(report!, 'sbom.license.denied')).toMatchObject({ status: 'skipped', detail: 'no license_deny list in the scope' });
    // Development dependencies are left out by default: the OSV service was never asked about them.
    expect(osv.queries.map((q) => q.package.name)).not.toContain('is-odd');
    expect(report!.outputs?.sbom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    const purls = (report!.outputs!.sbom as { components: Array<{ purl: string }> }).components.map((c) => c.purl);
    expect(purls).toContain('pkg:cargo/itoa@1.0.1');
    expect(purls).not.toContain('pkg:cargo/memchr@2.5.0');
  });

  it('says what each check covered, so a narrower scan never resolves a development dependency it left out', async () => {
    const { report: all } = await scan({ include_dev: true });
    const { report: prodOnly } = await scan();
    const devFinding = findings(all!, 'sbom.license.unknown').length;
    expect(devFinding).toBeGreaterThan(0);
    const locationsOf = (r: EngineReport, id: string) => findings(r, id).flatMap((f) => f.locations ?? []);
    expect(locationsOf(all!, 'sbom.vuln.known')).toContain('git:main:head:web/package-lock.json');
    const prodCoverage = check(prodOnly!, 'sbom.vuln.known').coverage;
    const fullCoverage = check(all!, 'sbom.vuln.known').coverage;
    expect(prodCoverage).toMatchObject({ kind: 'repository', ref: 'main', history: { read: false } });
    // A development dependency's issue is covered by an include_dev scan, not by the default one.
    expect(covers(fullCoverage, ['git:main:head:web/package-lock.json#dev'])).toBe(true);
    expect(covers(prodCoverage, ['git:main:head:web/package-lock.json#dev'])).toBe(false);
    expect(covers(prodCoverage, ['git:main:head:web/package-lock.json'])).toBe(true);
    expect(covers(prodCoverage, ['git:dev:head:web/package-lock.json'])).toBe(false);
  });

  it('says which advisory an ignore suppressed and why, in the check', async () => {
    const { report } = await scan({ ignore: [{ id: 'GHSA-35jh-r3h4-6jhm', reason: 'template() is not used' }] });
    const vulns = findings(report!, 'sbom.vuln.known').map((f) => f.fingerprint_key);
    expect(vulns).toEqual(['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1|GHSA-jfh8-c2jp-5v3q']);
    const { report: clean } = await scan({
      ignore: [
        { id: 'GHSA-35jh-r3h4-6jhm', reason: 'template() is not used' },
        { id: 'CVE-2021-44228', reason: 'patched jar', until: '2027-01-01' },
      ],
    });
    expect(check(clean!, 'sbom.vuln.known').status).toBe('pass');
    expect(check(clean!, 'sbom.vuln.known').detail).toContain(
      'GHSA-35jh-r3h4-6jhm on pkg:npm/lodash@4.17.20 (scope: template() is not used)',
    );
    expect(check(clean!, 'sbom.vuln.known').detail).toContain(
      'GHSA-29mw-wpgm-hmr9 on pkg:npm/lodash@4.17.20 (osv-scanner.toml: toNumber is never called with user input)',
    );
    // An ignore whose date has passed suppresses nothing.
    const { report: expired } = await scan({ ignore: [{ id: 'CVE-2021-44228', reason: 'old', until: '2026-01-01' }] });
    expect(findings(expired!, 'sbom.vuln.known')).toHaveLength(2);
  });

  it('lists development dependencies, and denies licences, when the scope asks', async () => {
    const { report } = await scan({ include_dev: true, license_deny: ['MIT'] });
    expect(osv.queries.map((q) => q.package.name)).toContain('is-odd');
    expect(findings(report!, 'sbom.license.denied').map((f) => f.fingerprint_key)).toContain('pkg:npm/is-odd@3.0.1|MIT');
    // Cargo.lock carries no licence: its direct crate is a licence unknown.
    expect(findings(report!, 'sbom.license.unknown').map((f) => f.fingerprint_key)).toContain('pkg:cargo/itoa@1.0.1');
  });

  it.each([
    ['error500', 'answered HTTP 500'],
    ['not_json', 'is not JSON'],
    ['huge', 'over 16777216 bytes'],
    ['short_results', 'not a querybatch result'],
    ['no_ids', 'advisory without an id'],
  ] as const)('makes the vulnerability checks error, never clean, when OSV answers %s', async (mode, message) => {
    osv.mode = mode;
    const { code, report } = await scan();
    expect(code).toBe(0);
    for (const id of ['sbom.vuln.known', 'sbom.vuln.malicious_package']) {
      expect(check(report!, id).status).toBe('error');
      expect(check(report!, id).detail).toContain(message);
    }
    expect(findings(report!, 'sbom.vuln.known')).toEqual([]);
    expect(report!.status).toBe('partial');
    // The lockfile rules still ran.
    expect(check(report!, 'sbom.lockfile.missing').status).toBe('fail');
  });

  it("ends a hanging OSV lookup at the scan's deadline with the vulnerability checks in error", async () => {
    osv.mode = 'hang';
    const scopeFile = join(work, 'hang.json');
    await writeFile(scopeFile, '{}');
    let stdout = '';
    const code = await runEngineCli(sbomscan, ['scan', app, '--scope-json', scopeFile, '--timeout', '3'], {
      stdout: (text) => (stdout += text),
      stderr: () => {},
      env: { SBOMSCAN_ALLOW_LOOPBACK: '1', SBOMSCAN_OSV_URL: osv.url, SBOMSCAN_TMPDIR: work },
      now: () => new Date(),
    });
    expect(code).toBe(0);
    const report = engineReportSchema().parse(JSON.parse(stdout));
    expect(check(report, 'sbom.vuln.known').status).toBe('error');
    expect(report.findings.filter((f) => f.rule_id.startsWith('sbom.vuln.'))).toEqual([]);
  }, 15_000);

  it('reports a malicious package as critical, and non-registry and insecure resolutions', async () => {
    const repo = await git.repository('acme/risky');
    await repo.commit('risky', {
      'package.json': '{"dependencies":{"evil-colors":"1.4.1","left-pad":"1.3.0","mine":"git+https://user:s3cr3t@git.example/mine.git"}}',
      'package-lock.json': JSON.stringify({
        lockfileVersion: 3,
        packages: {
          '': { dependencies: { 'evil-colors': '1.4.1', 'left-pad': '1.3.0', mine: 'git+https://user:s3cr3t@git.example/mine.git' } },
          'node_modules/evil-colors': {
            version: '1.4.1',
            resolved: 'https://registry.npmjs.org/evil-colors/-/evil-colors-1.4.1.tgz',
            integrity: 'sha512-AAAA',
          },
          'node_modules/left-pad': { version: '1.3.0', resolved: 'http://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz' },
          'node_modules/mine': {
            version: '1.0.0',
            resolved: 'git+https://user:s3cr3t@git.example/mine.git#0123456789abcdef0123456789abcdef01234567',
          },
        },
      }),
    });
    const { report, stderr } = await scan({}, {}, `${git.origin}/acme/risky.git`);
    expect(findings(report!, 'sbom.vuln.malicious_package')).toMatchObject([
      { severity: 'critical', fingerprint_key: 'pkg:npm/evil-colors@1.4.1|MAL-2025-0001' },
    ]);
    expect(findings(report!, 'sbom.dependency.non_registry_source').map((f) => f.fingerprint_key)).toEqual([
      'package-lock.json|pkg:npm/mine@1.0.0',
    ]);
    expect(
      findings(report!, 'sbom.lockfile.insecure_resolution').map((f) => `${String(f.evidence.purl)} ${String(f.evidence.problem)}`),
    ).toEqual(['pkg:npm/left-pad@1.3.0 http']);
    // A token in a lockfile's git URL is masked wherever it is reported.
    expect(JSON.stringify(report) + stderr).not.toContain('s3cr3t');
  });

  it('reads only the branch head, never runs anything, and leaves nothing in its temporary folder', async () => {
    const before = await readdir(work);
    const { report } = await scan({ branch: 'main' });
    expect(report!.status).toBe('ok');
    expect((await readdir(work)).filter((name) => !before.includes(name) && !name.startsWith('scope-'))).toEqual([]);
    // The Git server saw reads only: the ref advertisement and one upload-pack.
    expect(git.requests.every((r) => r.method === 'GET' || r.url.includes('git-upload-pack'))).toBe(true);
  });

  it('clones a private repository with the tenant credential of --credential-file, and never prints the token', async () => {
    const repo = await git.repository('acme/private', { token: 'tok-sbom-s3cret' });
    await repo.commit('lockfile', Object.fromEntries(loadTree(join(FIXTURES, 'npm-v3'))));
    const credentialFile = join(work, 'cred.json');
    const write = (hosts: string[]) =>
      writeFile(
        credentialFile,
        JSON.stringify({ alias: 'ci-bot', kind: 'git_token', secret: { token: 'tok-sbom-s3cret' }, allowed_hosts: hosts }),
        { mode: 0o600 },
      );
    const scopeFile = join(work, 'cred-scope.json');
    await writeFile(scopeFile, JSON.stringify({ credential: 'ci-bot' }));
    const runWith = async () => {
      let stdout = '';
      let stderr = '';
      const code = await runEngineCli(
        sbomscan,
        ['scan', `${git.origin}/acme/private.git`, '--scope-json', scopeFile, '--credential-file', credentialFile],
        {
          stdout: (text) => (stdout += text),
          stderr: (text) => (stderr += text),
          env: { SBOMSCAN_ALLOW_LOOPBACK: '1', SBOMSCAN_OSV_URL: osv.url, SBOMSCAN_TMPDIR: work },
          now: () => new Date(),
        },
      );
      return { code, stdout, stderr };
    };
    await write(['127.0.0.1']);
    const allowed = await runWith();
    expect(allowed.code).toBe(0);
    expect(findings(engineReportSchema().parse(JSON.parse(allowed.stdout)), 'sbom.vuln.known')).toHaveLength(2);
    expect(allowed.stdout + allowed.stderr).not.toContain('tok-sbom-s3cret');
    // A credential bound to other hosts is not sent: the scan cannot start, and says why.
    await write(['git.example.com']);
    const refused = await runWith();
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('may not be sent to 127.0.0.1');
    expect(git.requests.filter((r) => r.url.includes('acme/private') && r.authorized).length).toBeGreaterThan(0);
  });

  it('runs as the built executable the layer ships', async () => {
    const bin = await cachedEngineBuild('sbomscan');
    const { stdout } = await run(bin, ['rules']);
    expect((JSON.parse(stdout) as { rules: Array<{ rule_id: string }> }).rules.map((r) => r.rule_id)).toEqual(RULE_IDS);
    const scanned = await run(bin, ['scan', app], {
      env: { ...process.env, SBOMSCAN_ALLOW_LOOPBACK: '1', SBOMSCAN_OSV_URL: osv.url, SBOMSCAN_TMPDIR: work },
    });
    const report = engineReportSchema().parse(JSON.parse(scanned.stdout));
    expect(findings(report, 'sbom.vuln.known')).toHaveLength(2);
  });
});
