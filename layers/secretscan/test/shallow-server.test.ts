import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineReport } from '../../../lib/report.ts';
import { sha256Hex } from '../src/secret-evidence.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { gitAvailable, startGitServer, type GitServer } from '../../../test/helpers/git-http-server.ts';
import { checksummedToken } from './planted.ts';

/**
 * Issue 33 item 7: a history secretscan did not see is not clean. A hostile server in front of a
 * real one (git-http-backend) rewrites the client's `deepen N` to `deepen 1`, so the real server
 * declares the tip shallow and sends one commit of five. Before, every check passed with 1 of 5
 * commits read; now the cut history is an error on every rule (the tip's findings still count) and
 * the detail says how much was read. The built CLI scans through the proxy.
 */
const GH = ['gh', 'p_'].join('');

/** Rewrites the pkt-line `deepen N` of an upload-pack request to `deepen 1` (its length prefix too). */
function shallower(body: Buffer): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; at + 4 <= body.length;) {
    const length = Number.parseInt(body.subarray(at, at + 4).toString('latin1'), 16);
    const line = length === 0 ? body.subarray(at, at + 4) : body.subarray(at, at + length);
    const text = length > 4 ? line.subarray(4).toString('latin1') : '';
    out.push(/^deepen \d+\n$/.test(text) ? Buffer.from('000ddeepen 1\n', 'latin1') : line);
    at += length === 0 ? 4 : length;
  }
  return Buffer.concat(out);
}

describe.skipIf(!gitAvailable())('secretscan against a server that cuts the history', () => {
  let git: GitServer;
  let proxy: Server;
  let proxyOrigin: string;
  const old = checksummedToken(GH);
  const recent = checksummedToken(GH);
  let cut: EngineReport;
  let whole: EngineReport;

  beforeAll(async () => {
    git = await startGitServer();
    const repository = await git.repository('history');
    await repository.commit('first', { 'config.js': `module.exports = { token: '${old}' };\n` });
    await repository.commit('rotate the token', { 'config.js': 'module.exports = { token: process.env.TOKEN };\n' });
    await repository.commit('two', { 'a.txt': 'a\n' });
    await repository.commit('three', { 'b.txt': 'b\n' });
    await repository.commit('four', { 'notes.md': `a leftover: ${recent}\n` });
    const upstream = new URL(git.origin);
    proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = req.url?.endsWith('/git-upload-pack') ? shallower(raw) : raw;
        const headers = { ...req.headers, host: upstream.host, 'content-length': String(body.length) };
        const forward = httpRequest(
          { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyOrigin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    [{ report: cut }, { report: whole }] = await Promise.all([
      scanWithEngine('secretscan', `${proxyOrigin}/history.git`, { history: true }),
      scanWithEngine('secretscan', `${git.origin}/history.git`, { history: true }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await git?.close();
  });

  it('reads the whole history from the honest server and passes the rules it found nothing for', () => {
    expect(whole.findings.map((f) => f.fingerprint_key).sort()).toEqual([sha256Hex(old), sha256Hex(recent)].sort());
    expect(whole.checks.find((c) => c.id === 'secret.slack_token')?.status).toBe('pass');
  });

  it('reports the cut history as an error on every rule, keeping what the tip shows', () => {
    expect(cut.findings.map((f) => f.fingerprint_key)).toEqual([sha256Hex(recent)]);
    expect(cut.checks.find((c) => c.id === 'secret.github_token')?.status).toBe('fail');
    expect(cut.checks.filter((c) => c.id !== 'secret.github_token').every((c) => c.status === 'error')).toBe(true);
    expect(cut.errors.map((e) => e.message).join(' ')).toMatch(/1 of .*commit/);
    expect(cut.status).toBe('partial');
  });
});
