import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Deadline } from '../../../engine-kit/src/deadline.ts';
import { type TlsEndpointOptions, type TlsEndpointResult, scanTlsEndpoint } from '../../../engine-kit/src/tls/index.ts';

const run = promisify(execFile);

export function hasBinary(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

export interface LocalServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `openssl s_server -www` on an ephemeral port (it prints "ACCEPT 127.0.0.1:<port>" once
 * listening). -www keeps it serving (without it, s_server ends with its stdin); it serves one
 * connection at a time, like the smallest real servers.
 */
export async function startOpenSslServer(args: readonly string[]): Promise<LocalServer> {
  const child = spawn('openssl', ['s_server', '-accept', '127.0.0.1:0', '-www', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /ACCEPT 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`openssl s_server exited ${code}: ${output}`)));
  });
  child.stdout.removeAllListeners('data');
  child.stderr.removeAllListeners('data');
  child.stdout.resume();
  child.stderr.resume();
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

/** DH parameters of `bits` bits (DSA-style generation: fast, and a DHE group all the same). */
export async function dhParams(bits: number): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'tlsscan-dh-')), `dh${bits}.pem`);
  await run('openssl', ['dhparam', '-dsaparam', '-out', file, String(bits)]);
  return file;
}

export const LOOPBACK = { address: '127.0.0.1', family: 4, vetted: true } as const;

/** scanTlsEndpoint against 127.0.0.1:port, named `host`, within `seconds`. */
export function scanLocal(
  port: number,
  options: Partial<Omit<TlsEndpointOptions, 'deadline'>> & { seconds?: number } = {},
): Promise<TlsEndpointResult> {
  const { seconds = 30, ...rest } = options;
  return scanTlsEndpoint({ host: 'localhost', address: LOOPBACK, port, deadline: new Deadline(seconds * 1000), ...rest });
}

/** rule id → status, for compact assertions. */
export function statuses(result: TlsEndpointResult): Record<string, string> {
  return Object.fromEntries(result.rules.map((rule) => [rule.rule_id, rule.status]));
}

export function failing(result: TlsEndpointResult): string[] {
  return result.rules.filter((rule) => rule.status === 'fail').map((rule) => rule.rule_id);
}

export function rule(result: TlsEndpointResult, id: string): TlsEndpointResult['rules'][number] {
  const found = result.rules.find((r) => r.rule_id === id);
  if (!found) throw new Error(`no result for ${id}`);
  return found;
}
