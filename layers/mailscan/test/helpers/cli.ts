/**
 * Runs the real, bundled mailscan executable. The bundle is built once per state of the sources
 * (test/helpers/engine-build-cache.ts) into node_modules/.cache, so tests exercise exactly what the
 * layer ships, parallel test files never race on dist/, and twenty files do not build it twenty times.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMailscan } from '../../build.ts';
import { cachedEngineBuild } from '../../../../test/helpers/engine-build-cache.ts';
import { reportSchema, type Report } from '../../src/report.ts';
import { writePeakRssHook } from './peak-rss.ts';

let built: Promise<string> | undefined;

/** Builds the CLI (unless this state of the sources was built already) and returns the executable's path. */
export function buildCli(): Promise<string> {
  built ??= cachedEngineBuild('mailscan', buildMailscan);
  return built;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stderr parsed as JSON lines (the CLI writes nothing else there). */
  diagnostics: Record<string, unknown>[];
}

/**
 * Runs the CLI with a clean environment: nothing from the developer's MAILSCAN_* leaks in, and
 * MAILSCAN_ALLOW_LOOPBACK=1 lets HTTP checks reach loopback fixtures (MAILSCAN_ALLOW_PRIVATE does not: private networks are not this host).
 */
export async function runCli(args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<CliRun> {
  const bin = await buildCli();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, bin, ...args],
      { env: { PATH: process.env.PATH ?? '', MAILSCAN_ALLOW_LOOPBACK: '1', ...env }, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        const diagnostics = stderr
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        resolve({ code, stdout, stderr, diagnostics });
      },
    );
  });
}

/** Scans with the test DNS server as the only nameserver and returns the parsed report. */
export async function scan(
  domain: string,
  nameserver: string,
  flags: string[] = [],
  env: Record<string, string> = {},
): Promise<{ run: CliRun; report: Report }> {
  const run = await runCli(['scan', domain, '--nameserver', nameserver, ...flags], env);
  if (run.code !== 0) throw new Error(`mailscan exited ${run.code}: ${run.stderr}`);
  return { run, report: reportSchema.parse(JSON.parse(run.stdout)) };
}

/**
 * Runs the CLI under the usage hook (helpers/peak-rss.ts): the run, and what the process cost in
 * peak RSS and CPU time (not wall time, which measures the machine's other tenants).
 */
export async function runCliWithUsage(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ run: CliRun; peakRssBytes: number; cpuMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'mailscan-usage-'));
  try {
    const usageFile = join(dir, 'usage.json');
    const run = await runCli(args, { ...env, PEAK_RSS_FILE: usageFile }, ['--require', writePeakRssHook(dir)]);
    const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { maxRssKiB: number; cpuMs: number };
    return { run, peakRssBytes: usage.maxRssKiB * 1024, cpuMs: usage.cpuMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
