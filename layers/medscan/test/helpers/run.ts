/** Runs medscan's CLI in this process, as the tests of the other engines do; keeps stdout and stderr for the patient-data grep. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEngineCli } from '../../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../../lib/report.ts';
import { medscanDefinition } from '../../src/engine.ts';

export interface ScanRun {
  code: number;
  report: EngineReport;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Every scan output of the test file, for the patient-data grep. */
export const outputs: string[] = [];

const QUIET = { dicom_ports: [], hl7_ports: [], fhir_bases: [], dicomweb_bases: [] };

export async function runMedscan(target: string, scope: Record<string, unknown> = {}, timeoutSeconds = 30): Promise<ScanRun> {
  const dir = await mkdtemp(join(tmpdir(), 'medscan-run-'));
  try {
    const scopeFile = join(dir, 'scope.json');
    await writeFile(scopeFile, JSON.stringify({ ...QUIET, connect_timeout_ms: 1500, ...scope }));
    let stdout = '';
    let stderr = '';
    const started = performance.now();
    const code = await runEngineCli(medscanDefinition(), ['scan', target, '--scope-json', scopeFile, '--timeout', String(timeoutSeconds)], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: { MEDSCAN_ALLOW_LOOPBACK: '1' },
      now: () => new Date(),
    });
    outputs.push(stdout, stderr);
    if (code !== 0) throw new Error(`medscan exited ${code}: ${stderr}`);
    return { code, report: engineReportSchema().parse(JSON.parse(stdout)), stdout, stderr, ms: performance.now() - started };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function statuses(report: EngineReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}
