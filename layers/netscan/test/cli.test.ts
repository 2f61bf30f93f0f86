import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runEngineCli } from '../../engine-kit/src/cli.ts';
import type { EngineReport } from '../../../lib/report.ts';
import { netscanDefinition } from '../src/engine.ts';
import type { NetscanDependencies } from '../src/run-scan.ts';

async function cli(argv: string[], env: Record<string, string> = {}, dependencies: NetscanDependencies = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runEngineCli(netscanDefinition(dependencies), argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
    now: () => new Date(),
  });
  return { code, stdout, stderr };
}

describe('netscan CLI: bad input', () => {
  let work: string;
  const scopeFile = async (scope: unknown) => {
    const file = join(work, `scope-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(scope));
    return file;
  };
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'netscan-cli-'));
  });

  it('refuses a CIDR block over the bound as a usage error, saying how to split it', async () => {
    const { code, stdout, stderr } = await cli(['scan', '10.10.0.0/16']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('65536 addresses; one scan takes at most a /24');
  });

  it('refuses a hostname that resolves to a private address before connecting anywhere', async () => {
    const looked: string[] = [];
    const lookup = async (host: string) => {
      looked.push(host);
      return [{ address: '10.1.2.3', family: 4 }];
    };
    const { code, stdout, stderr } = await cli(['scan', 'office.acme.example'], {}, { lookup });
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/office\.acme\.example resolves to 10\.1\.2\.3, which is refused: .*private/);
    expect(looked).toEqual(['office.acme.example']);
  });

  it('refuses loopback unless NETSCAN_ALLOW_LOOPBACK is set', async () => {
    expect((await cli(['scan', '127.0.0.1'])).code).toBe(3);
    expect((await cli(['scan', 'localhost'])).code).toBe(3);
  });

  it('refuses a scope that does not parse', async () => {
    const bad = await cli(['scan', '127.0.0.1', '--scope-json', await scopeFile({ ports: '22,abc' })], { NETSCAN_ALLOW_LOOPBACK: '1' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('abc\\" is not a port or a range');
    const unknown = await cli(['scan', '127.0.0.1', '--scope-json', await scopeFile({ ports: 'top100', depth: 3 })], {
      NETSCAN_ALLOW_LOOPBACK: '1',
    });
    expect(unknown.code).toBe(2);
    const mode = await cli(['scan', '127.0.0.1', '--scope-json', await scopeFile({ mode: 'dast' })], { NETSCAN_ALLOW_LOOPBACK: '1' });
    expect(mode.code).toBe(2);
  });

  it("prints its catalogue with tlsscan's rules as net.tls.*", async () => {
    const { code, stdout } = await cli(['rules']);
    expect(code).toBe(0);
    const ids = (JSON.parse(stdout) as { rules: { rule_id: string }[] }).rules.map((r) => r.rule_id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'net.port.open',
        'net.unauthenticated.access',
        'vm.vulnerable_version',
        'net.tls.heartbleed',
        'net.tls.cert.expired',
      ]),
    );
    expect(ids).toHaveLength(6 + 21);
  });

  it('ends at its deadline with a partial report that claims nothing about the ports it did not try', async () => {
    // 5 attempts a second over 1000 ports cannot finish in a second.
    const scope = await scopeFile({ ports: 'top1000', rate: 5 });
    const { code, stdout } = await cli(['scan', '127.0.0.1', '--scope-json', scope, '--timeout', '1'], { NETSCAN_ALLOW_LOOPBACK: '1' });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as EngineReport;
    expect(report.status).not.toBe('ok');
    const check = report.checks.find((c) => c.id === 'net.port.open');
    expect(check?.status).toBe('error');
    expect(report.checks.filter((c) => c.status === 'pass')).toEqual([]);
  });
});
