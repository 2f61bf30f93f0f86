/**
 * The bad input of issue 37, through the CLI frame against a real Git server: bounded time and
 * memory, an error entry naming the file, never a crash or a clean verdict for what was not read.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../lib/report.ts';
import { gitAvailable, startGitServer, type GitServer } from '../../../test/helpers/git-http-server.ts';
import { sbomscan } from '../src/engine.ts';
import { startOsvServer, type OsvServer } from './osv-server.ts';

describe.skipIf(!gitAvailable())('sbomscan under hostile repositories', () => {
  let git: GitServer;
  let osv: OsvServer;
  let work: string;

  beforeAll(async () => {
    [git, osv] = await Promise.all([startGitServer(), startOsvServer()]);
    work = await mkdtemp(join(tmpdir(), 'sbomscan-hostile-'));
  });
  afterAll(async () => {
    await Promise.all([git?.close(), osv?.close()]);
    await rm(work, { recursive: true, force: true });
  });

  // No timing is asserted: the bound is the scan's own --timeout, and a scan cut by it says so (status partial, checks error).
  async function scanRepo(name: string, files: Record<string, string>): Promise<{ report: EngineReport }> {
    const repo = await git.repository(name);
    await repo.commit('hostile', files);
    const scope = join(work, `${name}.json`);
    await writeFile(scope, '{}');
    let stdout = '';
    const code = await runEngineCli(sbomscan, ['scan', `${git.origin}/${name}.git`, '--scope-json', scope, '--timeout', '120'], {
      stdout: (text) => (stdout += text),
      stderr: () => {},
      env: { SBOMSCAN_ALLOW_LOOPBACK: '1', SBOMSCAN_OSV_URL: osv.url, SBOMSCAN_TMPDIR: work },
      now: () => new Date(),
    });
    expect(code).toBe(0);
    return { report: engineReportSchema().parse(JSON.parse(stdout)) };
  }

  const status = (report: EngineReport, id: string) => report.checks.find((c) => c.id === id)!.status;

  it('names a 40 MB lockfile it did not read as an error, and still reads the rest', async () => {
    const big = `{"lockfileVersion":3,"packages":{"":{},${'"node_modules/x":{"version":"1.0.0"},'.repeat(1_200_000)}"node_modules/y":{"version":"1.0.0"}}}`;
    const { report } = await scanRepo('big', {
      'a/package-lock.json': big,
      'b/Cargo.lock':
        '[[package]]\nname = "itoa"\nversion = "1.0.1"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "00"\n',
      'b/Cargo.toml': '[dependencies]\nitoa = "1"\n',
    });
    expect(report.errors.map((e) => e.message).join()).toContain('a/package-lock.json cannot be parsed: not read: larger than 32 MiB');
    expect(status(report, 'sbom.vuln.known')).toBe('error');
    expect(status(report, 'sbom.dependency.non_registry_source')).toBe('error');
    expect((report.outputs!.sbom as { components: unknown[] }).components).toHaveLength(1);
  }, 60_000);

  it('refuses a YAML alias bomb, JSON nested 100,000 deep, and control characters, naming each file', async () => {
    const bomb = [
      'lockfileVersion: "9.0"',
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(',')}]`,
      ),
    ].join('\n');
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const { report } = await scanRepo('bombs', {
      'p/pnpm-lock.yaml': bomb,
      'p/package.json': '{}',
      'd/composer.lock': deep,
      'c/package-lock.json': JSON.stringify({
        lockfileVersion: 3,
        packages: { 'node_modules/ev\u0000il\u001b[31m': { version: '1.0.0\u0007', integrity: 'sha512-x' } },
      }),
    });
    const messages = report.errors.map((e) => e.message).join('\n');
    expect(messages).toContain('p/pnpm-lock.yaml cannot be parsed');
    expect(messages).toContain('d/composer.lock cannot be parsed');
    expect(report.status).not.toBe('error');
    // Control characters never reach the report unencoded.
    expect(JSON.stringify(report.outputs)).not.toMatch(/[\u0000-\u001f]/);
    expect(JSON.stringify(report.outputs)).toContain('pkg:npm/ev%00il%1B%5B31m@1.0.0%07');
  });

  it('treats `../../` in a lockfile as a path it reports, never one it reads', async () => {
    const { report } = await scanRepo('traversal', {
      'package.json': '{"dependencies":{"etc":"file:../../../../etc"}}',
      'package-lock.json': JSON.stringify({
        lockfileVersion: 3,
        packages: {
          '': { dependencies: { etc: 'file:../../../../etc' } },
          'node_modules/etc': { version: '0.0.0', resolved: 'file:../../../../etc' },
        },
      }),
    });
    const finding = report.findings.find((f) => f.rule_id === 'sbom.dependency.non_registry_source');
    expect(finding?.evidence).toMatchObject({ source: 'file', resolved: 'file:../../../../etc' });
    expect(JSON.stringify(report)).not.toContain('root:x:0:0');
  });

  it('reads 10,000 lockfiles within bounded time, looking each package up once', async () => {
    osv.queries.length = 0;
    const files: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) files[`svc/${i}/requirements.txt`] = `requests==2.19.1\npkg${i % 500}==1.0.${i % 7}\n`;
    const { report } = await scanRepo('many', files);
    expect(report.status).toBe('ok');
    expect(report.checks.find((c) => c.id === 'sbom.vuln.known')!.detail).toContain('looked up in OSV');
    expect(osv.queries.length).toBe(1 + 500 * 7);
  }, 240_000);
});
