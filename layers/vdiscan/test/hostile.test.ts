/**
 * Hostile and broken peers (DESIGN §11: every read bounded in bytes and time; §21): garbage on the
 * RDP port, a TPKT header announcing 65,535 bytes with nothing behind it, a TPKT that never
 * completes, a flood, a VNC server listing 255 security types (with type 0 and repeats) or fewer
 * than it announced, and one that stalls after its version. Each is an `error` for the rules it
 * concerns, within a bounded time, never a pass.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RDP_RULE_IDS, VNC_RULE_IDS } from '../src/catalogue.ts';
import { scan } from './helpers/scan.ts';

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback server that runs `talk` on each connection (bytes in, bytes out). */
async function peer(talk: (socket: Socket) => void, port = 0): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    talk(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return (server.address() as { port: number }).port;
}

const FAST = { readTimeoutMs: 400 };

function expectErrors(scanned: Awaited<ReturnType<typeof scan>>, ids: readonly string[]): void {
  for (const id of ids) expect(scanned.check(id).status, id).toBe('error');
  expect(scanned.report.checks.filter((c) => ids.includes(c.id) && c.status === 'pass')).toEqual([]);
  expect(scanned.report.status).not.toBe('ok');
}

describe('vdiscan against hostile RDP and VNC peers', () => {
  it('garbage on the RDP port (3389): RDP rules error, quickly', async () => {
    const port = await peer(
      (socket) => socket.once('data', () => socket.write(Buffer.from('\x7fELF garbage \x00\x01\x02 not rdp\r\n'))),
      3389,
    );
    const scanned = await scan(`127.0.0.1:${port}`, {}, FAST);
    expectErrors(scanned, RDP_RULE_IDS);
    expect(scanned.check('vdi.rdp.nla_not_required').detail).toContain('is the RDP port but answered an RDP Connection Request with');
    expect(scanned.ms).toBeLessThan(10_000);
  });

  it('a TPKT header announcing 65,535 bytes and nothing behind: refused at once, not waited for', async () => {
    const port = await peer((socket) => socket.once('data', () => socket.write(Buffer.from([3, 0, 0xff, 0xff]))));
    const scanned = await scan(`127.0.0.1:${port}`, {}, { readTimeoutMs: 20_000 });
    expectErrors(scanned, RDP_RULE_IDS);
    expect(scanned.check('vdi.rdp.standard_security').detail).toContain('a TPKT length of 65535 bytes');
    expect(scanned.ms).toBeLessThan(5_000); // the 20 s read timeout never came into it
  });

  it('a TPKT that never completes: an error after the read timeout', async () => {
    const port = await peer((socket) => socket.once('data', () => socket.write(Buffer.from([3, 0, 0, 19, 14, 0xd0]))));
    const scanned = await scan(`127.0.0.1:${port}`, {}, FAST);
    expectErrors(scanned, RDP_RULE_IDS);
    expect(scanned.check('vdi.rdp.nla_not_required').detail).toContain('a TPKT that never completed');
  });

  it('a flood behind a plausible TPKT: cut at the frame, memory flat', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x41);
    const port = await peer((socket) =>
      socket.once('data', () => {
        socket.write(Buffer.from([3, 0, 0x3f, 0xff, 0x0e, 0xd0]));
        let sent = 0;
        const pump = (): void => {
          while (sent < 64 && socket.write(chunk)) sent += 1;
          if (sent < 64 && !socket.destroyed) socket.once('drain', pump);
        };
        pump();
      }),
    );
    const before = process.memoryUsage().rss;
    const scanned = await scan(`127.0.0.1:${port}`, {}, FAST);
    expectErrors(scanned, RDP_RULE_IDS);
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });

  it.each([
    {
      name: '255 security types holding type 0',
      list: Buffer.from([255, ...Array.from({ length: 255 }, (_, i) => i)]),
      detail: 'type 0 (Invalid)',
    },
    {
      name: '255 copies of VNC Authentication',
      list: Buffer.from([255, ...Array.from({ length: 255 }, () => 2)]),
      detail: 'repeats types',
    },
    {
      name: 'a count of 255 and 10 types behind it',
      list: Buffer.from([255, 1, 2, 5, 6, 16, 18, 19, 20, 21, 22]),
      detail: 'no complete answer',
    },
  ])('a VNC server listing $name: an error, never a pass', async ({ list, detail }) => {
    const port = await peer((socket) => {
      socket.write('RFB 003.008\n');
      socket.once('data', () => socket.write(list));
    });
    const scanned = await scan(`127.0.0.1:${port}`, {}, FAST);
    expectErrors(scanned, VNC_RULE_IDS);
    expect(scanned.check('vdi.vnc.no_auth').detail).toContain(detail);
  });

  it('a VNC server that stalls after its version: an error after the read timeout', async () => {
    const port = await peer((socket) => socket.write('RFB 003.008\n'));
    const scanned = await scan(`127.0.0.1:${port}`, {}, FAST);
    expectErrors(scanned, VNC_RULE_IDS);
    expect(scanned.check('vdi.vnc.cleartext').detail).toContain('no complete answer within 400 ms');
    expect(scanned.ms).toBeLessThan(5_000);
  });
});
