import { execFile } from 'node:child_process';

export interface TimedRun {
  ms: number;
  stdout: string;
}

export interface TimedOptions {
  /** Added to PATH, the only variable a bench's child inherits. */
  env?: Record<string, string | undefined>;
  maxBufferBytes?: number;
  timeoutMs?: number;
  /** A reference tool that exits non-zero on findings (sslscan, testssl.sh) still has a wall time: resolve anyway. */
  resolveOnError?: boolean;
}

/**
 * One fresh process, timed from spawn to exit: what every paired bench compares (bench/paired.ts).
 * Rejects when the command fails, unless `resolveOnError`.
 */
export function spawnTimed(command: string, args: readonly string[], options: TimedOptions = {}): Promise<TimedRun> {
  const started = performance.now();
  return new Promise((resolve, reject) =>
    execFile(
      command,
      args,
      {
        env: { PATH: process.env.PATH ?? '', ...options.env },
        maxBuffer: options.maxBufferBytes ?? 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 600_000,
      },
      (error, stdout) =>
        error && !options.resolveOnError ? reject(new Error(error.message)) : resolve({ ms: performance.now() - started, stdout }),
    ),
  );
}
