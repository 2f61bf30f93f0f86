import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineReport } from '../../../lib/report.ts';
import { scanWithEngine } from '../../../test/helpers/built-engine.ts';
import { closedTcpPort } from '../../../test/helpers/closed-port.ts';

/**
 * Issue 33 item 5: identification that did not finish is not a pass. Services that trickle their
 * greeting (VNC, MySQL), speak only after every wait (telnet), or never end their greeting (SMTP)
 * leave the port's service rules `error`, and "stayed silent" is said only of silence. A port
 * that completes the handshake and then resets is open, as `nmap -sT` says. One netscan CLI run
 * over all the ports, with short waits from the operator config so the test takes seconds.
 */
const CONFIG = { netscan: { greeting_ms: 400, read_timeout_ms: 400 } };
const SERVICE_RULES = ['net.exposed.database', 'net.exposed.remote_admin', 'net.cleartext.protocol'];

const servers: Server[] = [];
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();

async function listen(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onSocket(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Writes `bytes` one at a time, `everyMs` apart. */
function trickle(socket: Socket, bytes: Buffer, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (at >= bytes.length || socket.destroyed) return void clearInterval(timer);
    socket.write(bytes.subarray(at, ++at));
  }, everyMs);
  timers.add(timer);
  socket.on('close', () => clearInterval(timer));
}

const MYSQL_GREETING = (() => {
  const payload = Buffer.concat([Buffer.from([0x0a]), Buffer.from('8.0.36\0', 'latin1'), Buffer.alloc(40, 0x41)]);
  const header = Buffer.from([payload.length & 0xff, payload.length >> 8, 0, 0]);
  return Buffer.concat([header, payload]);
})();

const ports: Record<string, number> = {};
let report: EngineReport;

beforeAll(async () => {
  ports.vnc = await listen((socket) => trickle(socket, Buffer.from('RFB 003.008\n'), 150));
  ports.mysql = await listen((socket) => trickle(socket, MYSQL_GREETING, 150));
  ports.telnet = await listen((socket) => {
    const timer = setTimeout(() => socket.write(Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20])), 1_000);
    timers.add(timer);
    socket.on('close', () => clearTimeout(timer));
  });
  ports.smtp = await listen((socket) => {
    const timer = setInterval(() => socket.write('220-mx.example ESMTP still greeting\r\n'), 100);
    timers.add(timer);
    socket.on('close', () => clearInterval(timer));
  });
  ports.reset = await listen((socket) => socket.resetAndDestroy());
  ports.closed = await closedTcpPort();
  ({ report } = await scanWithEngine(
    'netscan',
    '127.0.0.1',
    { ports: Object.values(ports).join(','), mode: 'vm' },
    { config: CONFIG, timeoutSeconds: 60 },
  ));
}, 90_000);

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

const where = (name: string): string => `127.0.0.1:${ports[name]}`;
const errorsAbout = (name: string): Array<{ check: string; message: string }> =>
  report.errors.filter((error) => error.message.includes(where(name)));

describe('netscan identification that did not finish', () => {
  it.each(['vnc', 'mysql', 'telnet', 'smtp'])('reports the service rules of the %s port as error, not pass', (name) => {
    expect(report.findings.some((f) => f.rule_id === 'net.port.open' && f.fingerprint_key === where(name))).toBe(true);
    expect(
      errorsAbout(name)
        .map((error) => error.check)
        .sort(),
    ).toEqual(expect.arrayContaining(SERVICE_RULES));
    for (const rule of SERVICE_RULES) expect(report.checks.find((check) => check.id === rule)?.status).toBe('error');
  });

  it('says "stayed silent" only of the port that was silent', () => {
    const said = (name: string): string =>
      JSON.stringify([errorsAbout(name), report.findings.find((f) => f.rule_id === 'net.port.open' && f.fingerprint_key === where(name))]);
    for (const name of ['vnc', 'mysql', 'smtp']) expect(said(name)).not.toMatch(/silent/);
    expect(said('vnc')).toMatch(/did not finish/);
  });

  it('reports a port that completes the handshake and then resets as open, and a refused one as closed', () => {
    const open = report.findings.filter((f) => f.rule_id === 'net.port.open').map((f) => f.fingerprint_key);
    expect(open).toContain(where('reset'));
    expect(open).not.toContain(where('closed'));
  });
});
