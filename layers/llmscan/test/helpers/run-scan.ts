import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEngineCli } from '../../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../../lib/report.ts';
import { makeLlmscan } from '../../src/engine.ts';
import type { Clock } from '../../src/gate.ts';

/** Virtual time: a sleep moves the clock on at once, so rate limits and Retry-After cost no real time. */
export interface VirtualClock extends Clock {
  slept: number[];
}

export function virtualClock(start = 1_000_000): VirtualClock {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      const until = now + Math.max(0, ms);
      await Promise.resolve();
      now = Math.max(now, until);
    },
  };
}

export interface ScanRun {
  code: number;
  report?: EngineReport;
  stderr: string;
}

/** Runs `llmscan scan` in this process through the kit's CLI frame, on `clock` (a new virtual one by default). */
export async function runLlmscan(
  target: string,
  scope: Record<string, unknown>,
  options: { clock?: Clock | 'system'; env?: Record<string, string>; timeoutSeconds?: number; credential?: Record<string, unknown> } = {},
): Promise<ScanRun> {
  const work = await mkdtemp(join(tmpdir(), 'llmscan-'));
  try {
    const scopeFile = join(work, 'scope.json');
    await writeFile(scopeFile, JSON.stringify(scope));
    const credentialFile = join(work, 'credential.json');
    if (options.credential) await writeFile(credentialFile, JSON.stringify(options.credential), { mode: 0o600 });
    let stdout = '';
    let stderr = '';
    const code = await runEngineCli(
      makeLlmscan({ clock: options.clock === 'system' ? undefined : (options.clock ?? virtualClock()) }),
      [
        'scan',
        '--scope-json',
        scopeFile,
        ...(options.credential ? ['--credential-file', credentialFile] : []),
        '--timeout',
        String(options.timeoutSeconds ?? 300),
        '--',
        target,
      ],
      {
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
        env: { LLMSCAN_ALLOW_LOOPBACK: '1', LLMSCAN_CONCURRENCY: '4', ...options.env },
        now: () => new Date(),
      },
    );
    return { code, stderr, report: stdout ? engineReportSchema().parse(JSON.parse(stdout)) : undefined };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export const statusOf = (report: EngineReport | undefined, id: string): string | undefined =>
  report?.checks.find((check) => check.id === id)?.status;

export const statuses = (report: EngineReport | undefined): Record<string, string> =>
  Object.fromEntries((report?.checks ?? []).map((check) => [check.id, check.status]));
