import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../lib/report.ts';
import { buildEngineOf } from '../../build.ts';
import { secretscan } from '../src/engine.ts';
import { RULE_IDS } from '../src/catalogue.ts';
import { gitAvailable, startGitServer, type GitServer } from '../../../test/helpers/git-http-server.ts';
import { plantedValues } from './planted.ts';
import { buildRepositories, type Fixtures } from './repositories.ts';
import { expectPassesSayWhy } from '../../../test/helpers/pass-details.ts';

const run = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe.skipIf(!gitAvailable())('the secretscan CLI', () => {
  let server: GitServer;
  let fixtures: Fixtures;
  let work: string;

  beforeAll(async () => {
    server = await startGitServer();
    fixtures = await buildRepositories(server);
    work = await mkdtemp(join(tmpdir(), 'secretscan-cli-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(work, { recursive: true, force: true });
  });

  async function cli(argv: string[], env: Record<string, string> = {}): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runEngineCli(secretscan, argv, {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: { SECRETSCAN_ALLOW_LOOPBACK: '1', SECRETSCAN_TMPDIR: work, ...env },
      now: () => new Date(),
    });
    return { code, stdout, stderr };
  }

  async function scopeFile(scope: unknown): Promise<string> {
    const file = join(work, `scope-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(scope));
    return file;
  }

  it('prints a report with one check per rule and the planted secrets as findings', async () => {
    const result = await cli(['scan', `${server.origin}/leaky.git`]);
    expect(result.code).toBe(0);
    const report = engineReportSchema().parse(JSON.parse(result.stdout));
    expect(report).toMatchObject({ scanner: { name: 'secretscan' }, target: `${server.origin}/leaky.git`, status: 'ok', errors: [] });
    expect(report.checks.map((check) => check.id)).toEqual(RULE_IDS);
    expect(report.checks.find((check) => check.id === 'secret.slack_token')).toMatchObject({ status: 'fail' });
    expect(report.checks.find((check) => check.id === 'secret.docker_token')).toMatchObject({ status: 'pass' });
    expectPassesSayWhy(report.checks);
    expect(report.findings.find((finding) => finding.rule_id === 'secret.aws_access_key')).toMatchObject({ severity: 'critical' });
    expect(report.findings.find((finding) => finding.rule_id === 'secret.generic_high_entropy')).toMatchObject({ severity: 'medium' });
    expect(report.findings.every((finding) => /^[0-9a-f]{64}$/.test(finding.fingerprint_key))).toBe(true);
  });

  async function credentialFile(token: string): Promise<string> {
    const file = join(work, `credential-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify({ alias: 'ci', kind: 'git_token', secret: { token }, allowed_hosts: ['127.0.0.1'] }), {
      mode: 0o600,
    });
    return file;
  }

  it('never writes a planted secret or the credential to the report or the log', async () => {
    const privateScan = async (token: string) =>
      cli([
        'scan',
        `${server.origin}/private.git`,
        '--scope-json',
        await scopeFile({ credential: 'ci' }),
        '--credential-file',
        await credentialFile(token),
      ]);
    const scans = [
      await cli(['scan', `${server.origin}/leaky.git`]),
      await cli(['scan', `${server.origin}/leaky.git`, '--format', 'text']),
      await privateScan(fixtures.serverToken),
      await privateScan(`${fixtures.serverToken}-wrong`),
      // The retired operator token is no longer read, whatever the environment holds.
      await cli(['scan', `${server.origin}/private.git`, '--scope-json', await scopeFile({ credential: 'ci' })], {
        SECRETSCAN_TOKEN_CI: fixtures.serverToken,
      }),
    ];
    const forbidden = [...plantedValues(fixtures.planted), fixtures.privateToken, fixtures.ignoredToken, fixtures.serverToken];
    for (const { stdout, stderr } of scans) {
      const lines = [...stdout.split('\n'), ...stderr.split('\n')];
      for (const value of forbidden) expect(lines.filter((line) => line.includes(value))).toEqual([]);
    }
    expect(JSON.parse(scans[2].stdout).findings).toHaveLength(1);
    expect(JSON.parse(scans[3].stdout).errors[0].message).toBe('the server refused the credential (HTTP 401)');
    expect(JSON.parse(scans[4].stdout).errors[0].message).toBe('the scope names credential ci, but no credential file was given');
  });

  it('leaves no clone behind', async () => {
    await cli(['scan', `${server.origin}/leaky.git`]);
    await cli(['scan', `${server.origin}/site/page`]);
    expect((await readdir(work)).filter((name) => name.startsWith('secretscan-'))).toEqual([]);
  });

  it('refuses loopback and http targets without the loopback setting (exit 3)', async () => {
    const refused = await cli(['scan', `${server.origin}/leaky.git`], { SECRETSCAN_ALLOW_LOOPBACK: '' });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toBe('');
  });

  it('refuses a target with credentials and a scope that does not parse (exit 2)', async () => {
    expect((await cli(['scan', 'https://user:pw@github.com/org/repo'])).code).toBe(2);
    expect((await cli(['scan', `${server.origin}/leaky.git`, '--scope-json', await scopeFile({ history: 'yes' })])).code).toBe(2);
    expect((await cli(['scan', `${server.origin}/leaky.git`, '--scope-json', await scopeFile({ credentials: 'ci' })])).code).toBe(2);
  });

  it('ends at its deadline with a partial report', async () => {
    // A server that never answers: the deadline, not the machine's speed, ends the scan.
    const result = await cli(['scan', `${server.origin}/hang.git`, '--timeout', '1']);
    const report = JSON.parse(result.stdout) as EngineReport;
    expect(result.code).toBe(0);
    expect(report.status).toBe('error');
    expect(report.errors[0].message).toMatch(/deadline passed/);
  });

  it('runs as the built executable', async () => {
    const outfile = await buildEngineOf('secretscan', join(work, 'dist', 'bin', 'secretscan'));
    const { stdout } = await run(process.execPath, [outfile, 'scan', `${server.origin}/leaky.git`], {
      env: { ...process.env, SECRETSCAN_ALLOW_LOOPBACK: '1', SECRETSCAN_TMPDIR: work },
      maxBuffer: 1 << 26,
    });
    const report = JSON.parse(stdout) as EngineReport;
    expect(report.status).toBe('ok');
    expect(new Set(report.findings.map((finding) => finding.rule_id)).size).toBe(11);
  }, 120_000);
});
