import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtEngine } from '../../../test/helpers/built-engine.ts';
import { gitAvailable, startGitServer, type GitServer } from '../../../test/helpers/git-http-server.ts';
import { checksummedToken, randomFrom } from './planted.ts';

/**
 * Issue 33 item 7, leftovers: a secretscan stopped by SIGTERM (what the runner sends at its
 * timeout) left the fetched pack in the temporary folder, a token recoverable from it by the next
 * job sharing a warm Lambda's /tmp. A server in front of git-http-backend sends the first 64 KiB
 * of the pack and then stalls; the built CLI is stopped while it waits, and its TMPDIR must be
 * empty once it has exited.
 */
describe.skipIf(!gitAvailable())('secretscan stopped by SIGTERM', () => {
  let git: GitServer;
  let stalling: Server;
  let origin: string;
  let work: string;
  const held = new Set<ServerResponse>();
  let stalled: () => void = () => {};
  const stalledOnce = new Promise<void>((resolve) => (stalled = resolve));

  beforeAll(async () => {
    git = await startGitServer();
    const repository = await git.repository('leaky');
    await repository.commit('config', {
      'config.js': `module.exports = { token: '${checksummedToken(['gh', 'p_'].join(''))}' };\n`,
      'data.txt': randomFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 400_000),
    });
    const upstream = new URL(git.origin);
    stalling = createServer((req: IncomingMessage, res: ServerResponse) => {
      const pack = req.url?.endsWith('/git-upload-pack') ?? false;
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          if (!pack) return void answer.pipe(res);
          let sent = 0;
          held.add(res);
          answer.on('data', (chunk: Buffer) => {
            if (sent >= 64 * 1024) return stalled();
            res.write(chunk);
            sent += chunk.length;
          });
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
    work = await mkdtemp(join(tmpdir(), 'secretscan-leftovers-'));
  }, 60_000);
  afterAll(async () => {
    for (const res of held) res.destroy();
    await new Promise((resolve) => stalling?.close(resolve));
    await git?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('removes what it fetched when stopped by SIGTERM mid-transfer', async () => {
    const bin = await builtEngine('secretscan');
    const child = spawn(process.execPath, [bin, 'scan', '--timeout', '60', '--', `${origin}/leaky.git`], {
      env: { PATH: process.env.PATH ?? '', TMPDIR: work, SECRETSCAN_ALLOW_LOOPBACK: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The pack is being written once the server has stalled and a file is in TMPDIR.
    await stalledOnce;
    const hasFile = async (): Promise<boolean> =>
      (await readdir(work, { recursive: true, withFileTypes: true })).some((entry) => entry.isFile());
    const watcher = watch(work, { recursive: true });
    try {
      while (!(await hasFile())) await new Promise((resolve) => watcher.once('change', resolve));
    } finally {
      watcher.close();
    }
    expect(
      (await readdir(work, { recursive: true, withFileTypes: true })).some((entry) => entry.isFile()),
      stderr,
    ).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    await exited;
    // Node's compile cache (the launcher's, code only) may stay; nothing fetched may.
    expect((await readdir(work)).filter((entry) => !entry.startsWith('secretscan-compile-cache'))).toEqual([]);
  }, 60_000);
});
