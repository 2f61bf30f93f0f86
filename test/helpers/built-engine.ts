/**
 * Runs a kit engine's real, bundled executable (built once per state of the sources by
 * engine-build-cache.ts) the way the runner does: `<engine> scan ... --format json`, a clean
 * environment holding only what the test passes, and the report parsed with the kit's schema.
 * The hostile-server regressions of issue 33 drive the engines through this, so what they prove
 * is what the layer ships.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EngineReport, engineReportSchema } from '../../lib/report.ts';
import { cachedEngineBuild } from './engine-build-cache.ts';
import { MANIFESTS } from '../../layers/manifests.ts';

/** The engines the hostile-server regressions drive (issue 33). */
export type KitEngine = 'tlsscan' | 'netscan' | 'secretscan';

const builds = new Map<KitEngine, Promise<string>>();

export function builtEngine(name: KitEngine): Promise<string> {
  let build = builds.get(name);
  if (!build) builds.set(name, (build = cachedEngineBuild(name)));
  return build;
}

export interface EngineRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the process, in ms. */
  wallMs: number;
  /** Peak resident set size of the engine process (process.resourceUsage at exit), in KiB. */
  maxRssKiB: number;
}

export interface RunOptions {
  env?: Record<string, string>;
  /** Kill the process after this long (default 60 s). */
  killAfterMs?: number;
}

/** Runs `<engine> ...args` and measures it. */
export async function runEngine(name: KitEngine, args: string[], options: RunOptions = {}): Promise<EngineRun> {
  const bin = await builtEngine(name);
  const work = await mkdtemp(join(tmpdir(), `${name}-run-`));
  const hook = join(work, 'usage.cjs');
  const usageFile = join(work, 'usage.json');
  await writeFile(
    hook,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(usageFile)}, JSON.stringify(process.resourceUsage().maxRSS)));`,
  );
  const started = performance.now();
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        // The manifest's node flags, as the runner passes them (engine-registry.ts).
        [...(MANIFESTS.find((manifest) => manifest.name === name)?.nodeFlags ?? []), '--require', hook, bin, ...args],
        { env: { PATH: process.env.PATH ?? '', ...options.env }, timeout: options.killAfterMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 },
        (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout: out, stderr: err }),
      ),
    );
    const wallMs = performance.now() - started;
    const maxRssKiB = Number(await readFile(usageFile, 'utf8').catch(() => 'NaN'));
    return { code, stdout, stderr, wallMs, maxRssKiB };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Runs `<engine> scan target` with a scope and returns the parsed report (the run must exit 0). */
export async function scanWithEngine(
  name: KitEngine,
  target: string,
  scope: Record<string, unknown> = {},
  options: RunOptions & { timeoutSeconds?: number; config?: Record<string, unknown> } = {},
): Promise<{ run: EngineRun; report: EngineReport }> {
  const work = await mkdtemp(join(tmpdir(), `${name}-scope-`));
  try {
    const scopeFile = join(work, 'scope.json');
    await writeFile(scopeFile, JSON.stringify(scope));
    const configFile = join(work, 'config.json');
    if (options.config) await writeFile(configFile, JSON.stringify(options.config));
    const prefix = name.toUpperCase();
    const run = await runEngine(
      name,
      [
        'scan',
        '--scope-json',
        scopeFile,
        ...(options.config ? ['--config', configFile] : []),
        '--timeout',
        String(options.timeoutSeconds ?? 30),
        '--format',
        'json',
        '--',
        target,
      ],
      { ...options, env: { [`${prefix}_ALLOW_LOOPBACK`]: '1', ...options.env } },
    );
    if (run.code !== 0) throw new Error(`${name} exited ${run.code}: ${run.stderr.slice(-2000)}`);
    return { run, report: engineReportSchema().parse(JSON.parse(run.stdout)) };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** check id → status. */
export function checkStatuses(report: EngineReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}
