import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../infra/paths.ts';
import { SESSION_KEY, startTestService, type TestService } from '../helpers/local-service.ts';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI of local/ as `npm run <name>` does (tsx on this Node), never failing the promise. */
function cli(file: string, args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `local/${file}`, ...args],
      { cwd: repositoryRoot, env: { ...process.env, LOG_FORMAT: 'json', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const CLIS = [
  ['main.ts', 'usage: npm start'],
  ['session-cli.ts', 'usage: npm run session'],
  ['reconcile-cli.ts', 'usage: npm run reconcile'],
  ['backfill-cli.ts', 'usage: npm run backfill'],
] as const;

describe('the CLIs of local/', () => {
  let service: TestService;
  let serverData: string;
  let emptyData: string;

  beforeAll(async () => {
    service = await startTestService();
    // The server's data directory, as npm start leaves it: its session key inside.
    serverData = await mkdtemp(join(tmpdir(), 'cli-server-data-'));
    await writeFile(join(serverData, 'session-key'), `${SESSION_KEY}\n`, { mode: 0o600 });
    emptyData = await mkdtemp(join(tmpdir(), 'cli-other-data-'));
  });
  afterAll(async () => {
    await service?.stop();
    await rm(serverData, { recursive: true, force: true });
    await rm(emptyData, { recursive: true, force: true });
  });

  it.each(CLIS)('%s --help prints its usage on stdout and exits 0', async (file, usage) => {
    const result = await cli(file, ['--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.startsWith(usage)).toBe(true);
  });

  it.each(CLIS)('%s refuses an unknown option with the usage and exit 2, no stack trace', async (file, usage) => {
    const result = await cli(file, ['--bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--bogus'");
    expect(result.stderr).toContain(usage);
    expect(result.stderr).not.toMatch(/ERR_PARSE_ARGS|\n\s+at /);
  });

  it("signs with the key in the server's DATA_DIR: the API accepts the token", async () => {
    const result = await cli('session-cli.ts', ['--tenant', 'acme', '--role', 'viewer'], { DATA_DIR: serverData });
    expect(result.code).toBe(0);
    const me = await service.call('/api/me', { token: result.stdout.trim() });
    expect([me.status, me.body.tenant, me.body.role]).toEqual([200, 'acme', 'viewer']);
  });

  it('refuses to mint with a key of its own when DATA_DIR has none, and says how to point at the server', async () => {
    const result = await cli('session-cli.ts', ['--tenant', 'acme'], { DATA_DIR: emptyData });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`no session key at ${join(emptyData, 'session-key')}`);
    expect(result.stderr).toContain('set DATA_DIR to the directory npm start printed');
    expect(existsSync(join(emptyData, 'session-key'))).toBe(false);
  });

  it('explains a bad role or ttl as a usage error', async () => {
    const role = await cli('session-cli.ts', ['--tenant', 'acme', '--role', 'root'], { DATA_DIR: serverData });
    expect(role.code).toBe(2);
    expect(role.stderr).toMatch(/^--role: /);
    const ttl = await cli('session-cli.ts', ['--tenant', 'acme', '--ttl', 'soon'], { DATA_DIR: serverData });
    expect([ttl.code, ttl.stderr.split('\n')[0]]).toEqual([2, '--ttl must be a whole number of seconds, not soon']);
  });

  it('reconcile talks to the server with its key (DATA_DIR and PORT)', async () => {
    const result = await cli('reconcile-cli.ts', ['--dry-run'], { DATA_DIR: serverData, PORT: String(service.runtime.port) });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ dry_run: true });
  });
});
