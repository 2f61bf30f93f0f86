/**
 * A repository of many tiny objects, written straight as a pack file (git's pack-format.txt): one
 * commit whose tree holds `blobs` distinct one-line files, `perTree` to a directory. Written as a
 * stream (the writer never holds the pack), so a bench can make two million objects and the process
 * whose peak RSS is measured never inherits them. `serveSyntheticPack` speaks smart HTTP
 * (http-protocol.txt, pack-protocol.txt) for it, streaming the file in side-band packets.
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { FLUSH, pktLine } from '../../../lib/git/pkt-line.ts';
import { objectHeader, objectIdBytes } from './pack-writer.ts';

/** A zlib stream of one stored (uncompressed) block (RFC 1950, RFC 1951 §3.2.4): no zlib call, so millions are quick. */
function storedZlib(content: Buffer): Buffer {
  let a = 1;
  let b = 0;
  for (const byte of content) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const out = Buffer.alloc(2 + 5 + content.length + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  out[2] = 0x01;
  out.writeUInt16LE(content.length, 3);
  out.writeUInt16LE(~content.length & 0xffff, 5);
  content.copy(out, 7);
  out.writeUInt32BE(((b << 16) | a) >>> 0, 7 + content.length);
  return out;
}

export interface SyntheticPack {
  path: string;
  tip: string;
  objects: number;
  bytes: number;
}

/** Writes the pack to `path`: `blobs` one-line files (`file N holds line N`), `perTree` to a directory. */
export async function writeSyntheticPack(path: string, blobs: number, perTree = 1000): Promise<SyntheticPack> {
  const trees = Math.ceil(blobs / perTree);
  const objects = blobs + trees + 2;
  const out = createWriteStream(path);
  const hash: Hash = createHash('sha1');
  let bytes = 0;
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    const chunk = Buffer.concat(pending);
    pending.length = 0;
    pendingBytes = 0;
    hash.update(chunk);
    bytes += chunk.length;
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  const put = async (data: Buffer) => {
    pending.push(data);
    pendingBytes += data.length;
    if (pendingBytes > 1 << 20) await flush();
  };
  const putObject = async (type: number, content: Buffer) => {
    await put(objectHeader(type, content.length));
    await put(content.length < 0xffff ? storedZlib(content) : deflateSync(content, { level: 1 }));
  };
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects, 8);
  await put(header);
  const rootEntries: Buffer[] = [];
  for (let t = 0; t < trees; t += 1) {
    const entries: Buffer[] = [];
    for (let n = t * perTree; n < Math.min(blobs, (t + 1) * perTree); n += 1) {
      const content = Buffer.from(`file ${n} holds line ${n}\n`, 'latin1');
      await putObject(3, content);
      entries.push(Buffer.from(`100644 f${n}.txt\0`, 'latin1'), objectIdBytes('blob', content));
    }
    const tree = Buffer.concat(entries);
    await putObject(2, tree);
    rootEntries.push(Buffer.from(`40000 d${String(t).padStart(6, '0')}\0`, 'latin1'), objectIdBytes('tree', tree));
  }
  const root = Buffer.concat(rootEntries);
  await putObject(2, root);
  const commit = Buffer.from(
    `tree ${objectIdBytes('tree', root).toString('hex')}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nmany files\n`,
    'latin1',
  );
  await putObject(1, commit);
  await flush();
  const trailer = hash.digest();
  out.end(trailer);
  await new Promise<void>((resolve, reject) => out.once('finish', () => resolve()).once('error', reject));
  return { path, tip: objectIdBytes('commit', commit).toString('hex'), objects, bytes: bytes + 20 };
}

const pkt = pktLine;
const text = (value: string) => pkt(Buffer.from(value, 'latin1'));

/** Serves the pack as `/many.git` over smart HTTP; every fetch gets the whole pack. */
export async function serveSyntheticPack(pack: SyntheticPack): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/many.git/info/refs')) {
      res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      res.end(
        Buffer.concat([
          text('# service=git-upload-pack\n'),
          FLUSH,
          text(`${pack.tip} HEAD\0side-band-64k ofs-delta shallow no-progress symref=HEAD:refs/heads/main\n`),
          text(`${pack.tip} refs/heads/main\n`),
          FLUSH,
        ]),
      );
      return;
    }
    if (req.method === 'POST' && req.url === '/many.git/git-upload-pack') {
      req.resume();
      req.on('end', () => {
        void (async () => {
          res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
          res.write(text('NAK\n'));
          const file = await open(pack.path);
          try {
            const chunk = Buffer.alloc(65_000);
            for (;;) {
              const { bytesRead } = await file.read(chunk, 0, chunk.length);
              if (bytesRead === 0) break;
              const ok = res.write(pkt(Buffer.concat([Buffer.from([1]), chunk.subarray(0, bytesRead)])));
              if (!ok) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
              if (res.destroyed) return;
            }
            res.end(FLUSH);
          } finally {
            await file.close();
          }
        })().catch(() => res.destroy());
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/many.git`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// `npx tsx layers/secretscan/test/synthetic-pack.ts <path> <blobs> [perTree]`: writes the pack in a process of
// its own (a child's peak RSS starts from its parent's at fork) and prints it as JSON.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [path, blobs, perTree = '1000'] = process.argv.slice(2);
  process.stdout.write(`${JSON.stringify(await writeSyntheticPack(path, Number(blobs), Number(perTree)))}\n`);
}
