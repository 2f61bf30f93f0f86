/** Runs webscan's CLI in this process, as the tests of the other engines do. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEngineCli } from '../../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../../lib/report.ts';
import { webscan } from '../../src/engine.ts';

export interface ScanRun {
  code: number;
  report?: EngineReport;
  stdout: string;
  stderr: string;
}

export async function runWebscan(
  target: string,
  scope: Record<string, unknown> = {},
  env: Record<string, string> = {},
  timeoutSeconds = 60,
  /** A tenant credential, written as the dispatch writes it (mode 0600) and passed as --credential-file. */
  credential?: Record<string, unknown>,
): Promise<ScanRun> {
  const dir = await mkdtemp(join(tmpdir(), 'webscan-run-'));
  try {
    const scopeFile = join(dir, 'scope.json');
    await writeFile(scopeFile, JSON.stringify(scope));
    const credentialFile = join(dir, 'credential.json');
    if (credential) await writeFile(credentialFile, JSON.stringify(credential), { mode: 0o600 });
    let stdout = '';
    let stderr = '';
    const args = ['scan', target, '--scope-json', scopeFile, '--timeout', String(timeoutSeconds)];
    if (credential) args.push('--credential-file', credentialFile);
    const code = await runEngineCli(webscan, args, {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: { WEBSCAN_ALLOW_LOOPBACK: '1', ...env },
      now: () => new Date(),
    });
    const report = code === 0 ? engineReportSchema().parse(JSON.parse(stdout)) : undefined;
    return { code, report, stdout, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** rule id → check status. */
export function statuses(report: EngineReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

/** The rule ids that failed, sorted. */
export function failed(report: EngineReport): string[] {
  return report.checks
    .filter((check) => check.status === 'fail')
    .map((check) => check.id)
    .sort();
}
