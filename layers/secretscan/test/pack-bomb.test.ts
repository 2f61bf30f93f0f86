import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLUSH, pktLine } from '../../../lib/git/pkt-line.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { objectHeader, objectId } from './pack-writer.ts';

/**
 * Issue 33 item 7, memory: a pack of about half a megabyte whose blob says it holds 100 bytes and
 * inflates to 512 MiB peaked at 1.85 GB and ran past its deadline. Inflating is bounded by the
 * declared size, so the lie ends the scan as an error at once. A smart-HTTP server written from
 * the protocol (git's pack-protocol.txt, http-protocol.txt) serves the pack; the built CLI scans it
 * and its peak RSS and wall time are measured.
 */
const MIB = 1024 * 1024;
const DEADLINE_SECONDS = 20;

const pkt = pktLine;

/** commit → tree → one blob that declares 100 bytes and inflates to 512 MiB of zeros. */
async function bombPack(): Promise<{ pack: Buffer; tip: string }> {
  const declared = Buffer.alloc(100);
  const tree = Buffer.concat([Buffer.from('100644 bomb.txt\0', 'latin1'), Buffer.from(objectId('blob', declared), 'hex')]);
  const treeOid = objectId('tree', tree);
  const commit = Buffer.from(
    `tree ${treeOid}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nbomb\n`,
    'latin1',
  );
  // 512 MiB of zeros deflate to about half a megabyte. One untouched 64 MiB zero buffer fed eight
  // times: the test process never holds the 512 MiB (a child's peak RSS starts from its parent's).
  const zeros = Buffer.alloc(64 * MIB);
  const deflater = zlib.createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  for (let i = 0; i < 8; i++) deflater.write(zeros);
  deflater.end();
  await new Promise((resolve) => deflater.once('end', resolve));
  const bomb = Buffer.concat(out);
  const parts: Buffer[] = [];
  parts.push(
    Buffer.from('PACK', 'latin1'),
    Buffer.from([0, 0, 0, 2, 0, 0, 0, 3]),
    objectHeader(1, commit.length),
    deflateSync(commit),
    objectHeader(2, tree.length),
    deflateSync(tree),
    objectHeader(3, declared.length),
    bomb,
  );
  const body = Buffer.concat(parts);
  return { pack: Buffer.concat([body, createHash('sha1').update(body).digest()]), tip: objectId('commit', commit) };
}

describe('secretscan against a pack bomb', () => {
  let server: Server;
  let origin: string;
  let packBytes = 0;

  beforeAll(async () => {
    const { pack, tip } = await bombPack();
    packBytes = pack.length;
    server = createServer((req, res) => {
      if (req.method === 'GET' && req.url?.startsWith('/refs.git/info/refs')) {
        // One million refs (tags) after the branch: a client that keeps them all holds a million map entries.
        res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
        res.write(Buffer.concat([pkt('# service=git-upload-pack\n'), FLUSH]));
        res.write(pkt(`${tip} HEAD\0side-band-64k ofs-delta shallow no-progress symref=HEAD:refs/heads/main\n`));
        res.write(pkt(`${tip} refs/heads/main\n`));
        for (let batch = 0; batch < 100; batch++) {
          const lines: Buffer[] = [];
          for (let i = 0; i < 10_000; i++) {
            const n = batch * 10_000 + i;
            lines.push(pkt(`${n.toString(16).padStart(40, '0')} refs/tags/v${n}\n`));
          }
          res.write(Buffer.concat(lines));
        }
        res.end(FLUSH);
        return;
      }
      if (req.method === 'GET' && req.url?.startsWith('/bomb.git/info/refs')) {
        res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
        res.end(
          Buffer.concat([
            pkt('# service=git-upload-pack\n'),
            FLUSH,
            pkt(`${tip} HEAD\0side-band-64k ofs-delta shallow no-progress symref=HEAD:refs/heads/main\n`),
            pkt(`${tip} refs/heads/main\n`),
            FLUSH,
          ]),
        );
        return;
      }
      if (req.method === 'POST' && (req.url === '/bomb.git/git-upload-pack' || req.url === '/refs.git/git-upload-pack')) {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
          const chunks: Buffer[] = [pkt('NAK\n')];
          for (let at = 0; at < pack.length; at += 65_000)
            chunks.push(pkt(Buffer.concat([Buffer.from([1]), pack.subarray(at, at + 65_000)])));
          res.end(Buffer.concat([...chunks, FLUSH]));
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it('ends with every rule error, under 256 MB and within its deadline + 2 s', async () => {
    const { run, report } = await scanWithEngine('secretscan', `${origin}/bomb.git`, {}, { timeoutSeconds: DEADLINE_SECONDS });
    console.info(
      `pack bomb (${(packBytes / MIB).toFixed(2)} MB pack, 512 MiB inflated): peak RSS ${(run.maxRssKiB / 1024).toFixed(0)} MiB, wall ${(run.wallMs / 1000).toFixed(2)} s`,
    );
    expect(
      report.checks.every((check) => check.status === 'error'),
      JSON.stringify(report.errors[0]),
    ).toBe(true);
    expect(report.errors[0]?.message).toMatch(/inflates|header says/);
    expect(run.maxRssKiB * 1024, JSON.stringify(report.errors[0])).toBeLessThan(256 * MIB);
    expect(run.wallMs).toBeLessThan((DEADLINE_SECONDS + 2) * 1000);
  }, 120_000);

  it('keeps only the refs it needs of a million advertised, under 256 MB', async () => {
    const { run, report } = await scanWithEngine('secretscan', `${origin}/refs.git`, {}, { timeoutSeconds: DEADLINE_SECONDS });
    console.info(`one million refs: peak RSS ${(run.maxRssKiB / 1024).toFixed(0)} MiB, wall ${(run.wallMs / 1000).toFixed(2)} s`);
    // The pack behind them is the bomb: the scan gets that far, past the advertisement.
    expect(report.errors[0]?.message).toMatch(/inflates|header says/);
    expect(run.maxRssKiB * 1024).toBeLessThan(256 * MIB);
    expect(run.wallMs).toBeLessThan((DEADLINE_SECONDS + 2) * 1000);
  }, 120_000);
});
