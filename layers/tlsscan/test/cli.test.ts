import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../engine-kit/src/cli.ts';
import { engineReportSchema } from '../../../lib/report.ts';
import { buildEngineOf } from '../../build.ts';
import { tlsscan } from '../src/engine.ts';
import { TLS_RULE_IDS, catalogue } from '../src/index.ts';
import { makeTestPki } from './helpers/pki.ts';
import { type RawServer, startRawTlsServer } from './helpers/raw-tls-server.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the tlsscan CLI', () => {
  let server: RawServer;
  let work: string;
  let rootPem: string;

  beforeAll(async () => {
    const pki = await makeTestPki();
    rootPem = pki.root.pem;
    const leaf = await pki.leaf();
    server = await startRawTlsServer({
      versions: [0x0301, 0x0302, 0x0303],
      suites: [0xc02f, 0x000a],
      certificates: [leaf.der, Buffer.from(new X509Certificate(pki.intermediate.pem).raw)],
      heartbeat: 'vulnerable',
    });
    work = await mkdtemp(join(tmpdir(), 'tlsscan-cli-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(work, { recursive: true, force: true });
  });

  async function cli(argv: string[], env: Record<string, string> = { TLSSCAN_ALLOW_LOOPBACK: '1' }): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runEngineCli(tlsscan, argv, {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env,
      now: () => new Date(),
    });
    return { code, stdout, stderr };
  }

  it('prints the catalogue and the version', async () => {
    const rules = await cli(['rules']);
    expect(rules.code).toBe(0);
    expect(JSON.parse(rules.stdout)).toEqual({ scanner: { name: 'tlsscan', version: '0.1.0' }, rules: catalogue });
    expect((await cli(['--version'])).stdout).toBe('tlsscan 0.1.0\n');
  });

  it('scans host:port into a report with one check per rule', async () => {
    const scope = join(work, 'scope.json');
    await writeFile(scope, JSON.stringify({ extra_roots: rootPem }));
    const run = await cli(['scan', `localhost:${server.port}`, '--scope-json', scope, '--timeout', '30']);
    expect(run.code).toBe(0);
    const report = engineReportSchema().parse(JSON.parse(run.stdout));
    expect(report).toMatchObject({ scanner: { name: 'tlsscan' }, target: `localhost:${server.port}`, status: 'ok', errors: [] });
    expect(report.checks.map((check) => check.id)).toEqual([...TLS_RULE_IDS]);
    expect(report.findings.map((finding) => [finding.rule_id, finding.severity]).sort()).toEqual([
      ['tls.cipher.no_forward_secrecy', 'medium'],
      ['tls.cipher.sweet32', 'medium'],
      ['tls.heartbleed', 'critical'],
      ['tls.protocol.tls10', 'medium'],
      ['tls.protocol.tls11', 'medium'],
    ]);
    expect(new Set(report.findings.map((finding) => finding.fingerprint_key))).toEqual(new Set([`localhost:${server.port}`]));
    expect(
      run.stderr
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { event: string }).event),
    ).toContain('tls.protocols');
  });

  it('refuses loopback without TLSSCAN_ALLOW_LOOPBACK (exit 3) and a bad scope or target (exit 2)', async () => {
    expect((await cli(['scan', `127.0.0.1:${server.port}`], {})).code).toBe(3);
    const scope = join(work, 'bad-scope.json');
    await writeFile(scope, JSON.stringify({ starttls: 'ftp' }));
    expect((await cli(['scan', `127.0.0.1:${server.port}`, '--scope-json', scope])).code).toBe(2);
    expect((await cli(['scan', 'https://example.com/'])).code).toBe(2);
  });

  it('builds to one executable that runs the same scan', async () => {
    const bin = await buildEngineOf('tlsscan', join(work, 'dist', 'bin', 'tlsscan'));
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [bin, 'scan', `127.0.0.1:${server.port}`],
        { env: { PATH: process.env.PATH ?? '', TLSSCAN_ALLOW_LOOPBACK: '1' } },
        (error, out) => resolve({ code: error ? Number(error.code) : 0, stdout: out }),
      ),
    );
    expect(code).toBe(0);
    const report = engineReportSchema().parse(JSON.parse(stdout));
    // Without extra_roots the test root is not trusted: the built engine checks the chain too.
    expect(report.findings.map((finding) => finding.rule_id)).toContain('tls.cert.untrusted');
    expect(report.checks).toHaveLength(TLS_RULE_IDS.length);

    // The engine kit's CLI takes parseArgs alone: an import of node:util made node 24 load what its
    // lazy exports stand for (worker_threads, locks, the diff) in every engine process.
    const hook = join(work, 'modules.cjs');
    await writeFile(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(work, 'modules.json'))}, JSON.stringify(process.moduleLoadList)));`,
    );
    await promisify(execFile)(process.execPath, ['--require', hook, bin, '--version'], { env: { PATH: process.env.PATH ?? '' } });
    const modules = JSON.parse(await readFile(join(work, 'modules.json'), 'utf8')) as string[];
    expect(modules).toContain('NativeModule internal/util/parse_args/parse_args');
    expect(modules.filter((name) => /^NativeModule (worker_threads|internal\/util\/diff|internal\/locks)$/.test(name))).toEqual([]);
  }, 60_000);
});
