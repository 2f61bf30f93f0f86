/**
 * Runs vdiscan in-process through the kit's CLI frame (the same path as the executable), with
 * loopback allowed, and returns its report and a check lookup.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEngineCli } from '../../../engine-kit/src/cli.ts';
import type { Check, EngineReport } from '../../../../lib/report.ts';
import { vdiscanDefinition, type VdiDependencies } from '../../src/engine.ts';

export interface Scanned {
  report: EngineReport;
  check: (id: string) => Check;
  findings: (id: string) => EngineReport['findings'];
  stderr: string;
  ms: number;
}

export async function scan(target: string, scope: Record<string, unknown> = {}, dependencies: VdiDependencies = {}): Promise<Scanned> {
  const dir = await mkdtemp(join(tmpdir(), 'vdiscan-scope-'));
  const scopeFile = join(dir, 'scope.json');
  await writeFile(scopeFile, JSON.stringify(scope));
  let stdout = '';
  let stderr = '';
  const started = Date.now();
  const code = await runEngineCli(vdiscanDefinition(dependencies), ['scan', target, '--scope-json', scopeFile, '--timeout', '60'], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { VDISCAN_ALLOW_LOOPBACK: '1' },
    now: () => new Date(),
  }).finally(() => rm(dir, { recursive: true, force: true }));
  const ms = Date.now() - started;
  if (code !== 0) throw new Error(`vdiscan exited ${code}: ${stderr}`);
  const report = JSON.parse(stdout) as EngineReport;
  return {
    report,
    stderr,
    ms,
    check: (id) => {
      const found = report.checks.find((c) => c.id === id);
      if (!found) throw new Error(`no check ${id}`);
      return found;
    },
    findings: (id) => report.findings.filter((f) => f.rule_id === id),
  };
}
