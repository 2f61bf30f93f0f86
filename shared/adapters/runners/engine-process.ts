import { execFile } from 'node:child_process';
import type { RunnerInput } from '../../ports/scan-runner.ts';

/** An engine's report is at most this large on stdout; a larger one fails the run. */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
/** Seconds an engine's own --timeout leaves before the runner's hard deadline, to print its report. */
export const CLI_HEADROOM_SECONDS = 5;

/** The --timeout an engine gets for a runner budget of `timeoutMs`. */
export function engineTimeoutSeconds(timeoutMs: number): number {
  return Math.max(1, Math.floor(timeoutMs / 1000) - CLI_HEADROOM_SECONDS);
}

/**
 * What a process needs to start, beside an engine's own `<PREFIX>_*` settings, and EXTRA_CA_FILE,
 * the PEM bundle DESIGN §11 has every engine trust beside Node's roots (private PKI; tests).
 */
const BASE_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'EXTRA_CA_FILE'];

/**
 * The environment an engine runs with: its `<PREFIX>_*` settings from the service's environment
 * (and what a process needs to start), nothing else of the service's, then its operator keys.
 * Keys travel in the environment only, never on the command line or in a log line.
 */
export function engineEnv(prefix: string, env: NodeJS.ProcessEnv, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const passed = Object.entries(env).filter(([name]) => name.startsWith(`${prefix}_`) || BASE_ENV.includes(name));
  return { ...Object.fromEntries(passed), ...extra };
}

/** The last diagnostic line an engine wrote to stderr (JSON lines), for an error message. */
export function lastDiagnostic(stderr: string): string {
  const line = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
  try {
    const parsed = JSON.parse(line) as { message?: string; error?: string };
    return parsed.error ?? parsed.message ?? line;
  } catch {
    return line.slice(0, 500);
  }
}

/**
 * Runs an engine's CLI with execFile (no shell) under `node`, bounded by `timeoutMs` and the
 * invocation's `signal`, and returns its stdout when it printed a report (exit 0). Exit 3 (could
 * not start), 2 (usage) or any other failure rejects with the engine's own last word.
 */
export function runEngineProcess(options: {
  engine: string;
  node: string;
  bin: string;
  /** Options for `node` itself, before the executable (mailscan's `--snapshot-blob`). */
  nodeOptions?: readonly string[];
  args: string[];
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  timeoutMs: number;
  target: string;
}): Promise<string> {
  const { engine, node, bin, nodeOptions = [], args, env, signal, timeoutMs, target } = options;
  return new Promise((resolve, reject) => {
    execFile(
      node,
      [...nodeOptions, bin, ...args],
      { env, signal, timeout: timeoutMs, maxBuffer: MAX_REPORT_BYTES, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if (typeof error.code !== 'number') {
          return reject(
            new Error(
              error.name === 'AbortError'
                ? `${engine} was stopped: the invocation ran out of time`
                : error.killed
                  ? `${engine} overran its deadline and was stopped`
                  : `${engine} could not run: ${error.message}`,
            ),
          );
        }
        if (error.code === 3) return reject(new Error(`${engine} could not scan ${target}: ${lastDiagnostic(stderr)}`));
        reject(new Error(`${engine} exited ${error.code}: ${lastDiagnostic(stderr)}`));
      },
    );
  });
}

/**
 * A run's first log line: the target, the names of the options the tenant set (not their values:
 * a scope may hold canaries or private roots, and the log goes to CloudWatch), the time limit in
 * seconds and the credential's name. Never the command line, whose file names are this server's
 * temporary folder (issue 41 item 4).
 */
export function startedLine(input: Pick<RunnerInput, 'target' | 'scope' | 'timeoutMs' | 'credential'>): Record<string, unknown> {
  return {
    target: input.target,
    options: Object.keys(input.scope).sort(),
    time_limit_seconds: engineTimeoutSeconds(input.timeoutMs),
    ...(input.credential !== undefined ? { credential: input.credential.alias } : {}),
  };
}
