/** Runs nhiscan in-process through the kit's CLI frame, with a credential file and a clock of the test's. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEngineCli } from '../../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../../lib/report.ts';
import type { CredentialFile } from '../../../../lib/credential.ts';
import { makeNhiscan } from '../../src/engine.ts';

export interface ScanOptions {
  credential: CredentialFile;
  scope?: Record<string, unknown>;
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Days the engine's clock runs ahead of the wall clock (moto cannot backdate a key, so the scan moves forward). */
  aheadDays?: number;
  timeoutSeconds?: number;
}

export async function runNhiscan(options: ScanOptions): Promise<{ report: EngineReport; stderr: string; code: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'nhiscan-test-'));
  try {
    const credentialPath = join(dir, 'credential.json');
    await writeFile(credentialPath, JSON.stringify(options.credential), { mode: 0o600 });
    const scopePath = join(dir, 'scope.json');
    await writeFile(scopePath, JSON.stringify(options.scope ?? {}));
    const args = ['scan', `--scope-json=${scopePath}`, `--credential-file=${credentialPath}`, `--timeout=${options.timeoutSeconds ?? 60}`];
    if (options.config) {
      const configPath = join(dir, 'config.json');
      await writeFile(configPath, JSON.stringify(options.config));
      args.push(`--config=${configPath}`);
    }
    args.push('--', options.credential.alias);
    let stdout = '';
    let stderr = '';
    const ahead = (options.aheadDays ?? 0) * 86_400_000;
    const code = await runEngineCli(makeNhiscan(), args, {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: { NHISCAN_ALLOW_LOOPBACK: '1', NHISCAN_REQUEST_TIMEOUT_SECONDS: '5', ...options.env },
      now: () => new Date(Date.now() + ahead),
    });
    if (code !== 0) return { report: undefined as never, stderr, code };
    return { report: engineReportSchema().parse(JSON.parse(stdout)), stderr, code };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The status of each check by rule id. */
export function statuses(report: EngineReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

export function detailOf(report: EngineReport, ruleId: string): string {
  return report.checks.find((check) => check.id === ruleId)?.detail ?? '';
}
