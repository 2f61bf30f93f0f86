/**
 * Loopback listeners for netscan's tests: real servers where Debian has them (OpenSSH's sshd,
 * redis-server, Node's HTTP and HTTPS servers, `smtp-server`), and protocol-accurate fakes for the
 * rest, each answering the way the real server answers the requests netscan and nmap send. Every
 * listener binds an ephemeral port on 127.0.0.1.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { encodeBson, decodeBson, type BsonDocument } from '../../src/probe/bson.ts';

export const SSHD = '/usr/sbin/sshd';
export const REDIS_SERVER = '/usr/bin/redis-server';
export const OPENSSL = '/usr/bin/openssl';

export interface Listener {
  /** Our service name for it (`unknown` for the silent and flooding ones). */
  name: string;
  port: number;
  close(): Promise<void>;
}

function listen(server: Server | HttpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closer(server: Server | HttpServer, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

/** A raw TCP listener whose `onConnection` speaks the protocol. */
async function tcpListener(name: string, onConnection: (socket: Socket) => void): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  return { name, port: await listen(server), close: closer(server, sockets) };
}

/** Collects a connection's bytes and hands the buffer to `handle` until it returns how many it used. */
function framed(socket: Socket, handle: (buffer: Buffer) => number): void {
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const used = handle(buffer);
      if (used <= 0) return;
      buffer = buffer.subarray(used);
    }
  });
}

/** Lines of a text protocol. */
function lines(socket: Socket, onLine: (line: string) => void): void {
  framed(socket, (buffer) => {
    const end = buffer.indexOf('\n');
    if (end === -1) return 0;
    onLine(buffer.toString('latin1', 0, end).replace(/\r$/, ''));
    return end + 1;
  });
}

/** A free ephemeral port for a server that cannot bind port 0 itself (sshd, redis-server). */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Spawns a server and resolves once `ready` appears on its output. */
function spawnUntil(command: string, args: string[], ready: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      (child as ChildProcess & { output: string }).output = output;
      if (ready.test(output)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output.slice(0, 500)}`)));
  });
}

/** The port a spawned server printed (spawnUntil kept its output). */
function portFromOutput(child: ChildProcess, pattern: RegExp): number {
  const match = pattern.exec((child as ChildProcess & { output: string }).output);
  if (!match) throw new Error(`no port in the output of ${child.spawnfile}`);
  return Number(match[1]);
}

function stopChild(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/** OpenSSH's sshd in the foreground on a high port, with a host key made for the test. */
export async function startSshd(): Promise<Listener> {
  const dir = await mkdtemp(join(tmpdir(), 'netscan-sshd-'));
  await promisify(execFile)('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  await writeFile(
    config,
    [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_key')}`, 'PidFile none', 'UsePAM no', 'StrictModes no', ''].join(
      '\n',
    ),
  );
  // Run as root, sshd wants its privilege-separation directory, which Debian's unit creates at boot.
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
  const child = await spawnUntil(SSHD, ['-D', '-e', '-f', config], /Server listening on/);
  return { name: 'ssh', port, close: stopChild(child) };
}

/** redis-server without persistence; `password` turns AUTH on. */
export async function startRedis(password?: string): Promise<Listener> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];
  if (password) args.push('--requirepass', password);
  const child = await spawnUntil(REDIS_SERVER, args, /Ready to accept connections/);
  return { name: 'redis', port, close: stopChild(child) };
}

/** `smtp-server`; with STARTTLS it uses the library's bundled test certificate. */
export async function startSmtp(starttls: boolean): Promise<Listener> {
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    logger: false,
    banner: 'netscan test ESMTP',
    disabledCommands: starttls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    hideSTARTTLS: !starttls,
    onData(stream, _session, callback) {
      stream.resume();
      callback(new Error('this test server takes no mail'));
    },
  });
  // tlsscan's probes end many handshakes on purpose (old versions, no shared suite); the server reports each.
  server.on('error', () => {});
  const port = await listen(server.server);
  return { name: 'smtp', port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** An FTP server's control connection as vsftpd answers before login (no AUTH TLS in FEAT). */
export function startFtp(): Promise<Listener> {
  return tcpListener('ftp', (socket) => {
    socket.write('220 (vsFTPd 3.0.3)\r\n');
    lines(socket, (line) => {
      const command = line.split(' ')[0].toUpperCase();
      if (command === 'FEAT')
        socket.write('211-Features:\r\n EPRT\r\n EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n TVFS\r\n211 End\r\n');
      else if (command === 'QUIT') socket.end('221 Goodbye.\r\n');
      else if (command === 'USER' || command === 'PASS') socket.write('530 This FTP server is anonymous only.\r\n');
      else socket.write('530 Please login with USER and PASS.\r\n');
    });
  });
}

export const PYTHON3 = '/usr/bin/python3';

/** Python's http.server (SimpleHTTP), a real HTTP server from Debian, serving an empty folder. */
export async function startHttp(): Promise<Listener> {
  const dir = await mkdtemp(join(tmpdir(), 'netscan-http-'));
  const child = await spawnUntil(
    PYTHON3,
    ['-u', '-m', 'http.server', '--bind', '127.0.0.1', '--directory', dir, '0'],
    /Serving HTTP on \S+ port \d+/,
  );
  return { name: 'http', port: portFromOutput(child, /port (\d+)/), close: stopChild(child) };
}

/** `openssl s_server -www`, a real TLS server that answers HTTP, with a certificate made for the test. */
export async function startHttps(): Promise<Listener> {
  const dir = await mkdtemp(join(tmpdir(), 'netscan-https-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  await promisify(execFile)(OPENSSL, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
  ]);
  const child = await spawnUntil(OPENSSL, ['s_server', '-accept', '127.0.0.1:0', '-www', '-cert', cert, '-key', key], /ACCEPT \S+:\d+/);
  return { name: 'http', port: portFromOutput(child, /ACCEPT \S+:(\d+)/), close: stopChild(child) };
}

/** A telnet daemon's opening as Linux netkit telnetd sends it: DO TTYPE, DO TSPEED, DO XDISPLOC, DO NEW-ENVIRON. */
export function startTelnet(): Promise<Listener> {
  return tcpListener('telnet', (socket) => {
    socket.write(Buffer.from([0xff, 0xfd, 0x18, 0xff, 0xfd, 0x20, 0xff, 0xfd, 0x23, 0xff, 0xfd, 0x27]));
  });
}

/** An RFB 3.8 server's ProtocolVersion; it then waits for the client's. */
export function startVnc(): Promise<Listener> {
  return tcpListener('vnc', (socket) => socket.write('RFB 003.008\n'));
}

/** MySQL 8.0's HandshakeV10 (protocol 10, version, thread id, scramble, capabilities with CLIENT_SSL). */
export function startMysql(): Promise<Listener> {
  return tcpListener('mysql', (socket) => {
    const payload = Buffer.concat([
      Buffer.from([0x0a]),
      Buffer.from('8.0.36\0', 'latin1'),
      Buffer.from([0x0b, 0, 0, 0]),
      Buffer.from('abcdefgh', 'latin1'),
      Buffer.from([0]),
      Buffer.from([0xff, 0xff]), // capabilities (lower): CLIENT_SSL among them
      Buffer.from([0xff]), // utf8mb4_0900_ai_ci
      Buffer.from([0x02, 0x00]), // SERVER_STATUS_AUTOCOMMIT
      Buffer.from([0xff, 0xdf]), // capabilities (upper)
      Buffer.from([21]),
      Buffer.alloc(10),
      Buffer.from('ijklmnopqrst\0', 'latin1'),
      Buffer.from('caching_sha2_password\0', 'latin1'),
    ]);
    const header = Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, 0, 0]);
    socket.write(Buffer.concat([header, payload]));
  });
}

function pgError(fields: [string, string][]): Buffer {
  const body = Buffer.concat([...fields.map(([code, text]) => Buffer.from(`${code}${text}\0`, 'utf8')), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from('E'), length, body]);
}

/**
 * PostgreSQL's postmaster before authentication (ProcessStartupPacket): a bad packet length or an
 * unsupported protocol version is a FATAL ErrorResponse; an SSLRequest gets N (no TLS); a v3
 * startup gets an MD5 password request.
 */
export function startPostgres(): Promise<Listener> {
  return tcpListener('postgresql', (socket) => {
    framed(socket, (buffer) => {
      if (buffer.length < 4) return 0;
      const length = buffer.readInt32BE(0);
      if (length < 8 || length > 10_000) {
        socket.end(
          pgError([
            ['S', 'FATAL'],
            ['V', 'FATAL'],
            ['C', '08P01'],
            ['M', 'invalid length of startup packet'],
            ['F', 'postmaster.c'],
            ['L', '2027'],
            ['R', 'ProcessStartupPacket'],
          ]),
        );
        return buffer.length;
      }
      if (buffer.length < length) return 0;
      const version = buffer.readUInt32BE(4);
      if (version === 80877103) {
        socket.write('N');
        return length;
      }
      const major = version >>> 16;
      const minor = version & 0xffff;
      if (major !== 3) {
        socket.end(
          pgError([
            ['S', 'FATAL'],
            ['V', 'FATAL'],
            ['C', '0A000'],
            ['M', `unsupported frontend protocol ${major}.${minor}: server supports 3.0 to 3.0`],
            ['F', 'postmaster.c'],
            ['L', '2150'],
            ['R', 'ProcessStartupPacket'],
          ]),
        );
        return buffer.length;
      }
      socket.write(Buffer.from([0x52, 0, 0, 0, 12, 0, 0, 0, 5, 1, 2, 3, 4]));
      return length;
    });
  });
}

/**
 * An RDP server's X.224 Connection Confirm with an RDP Negotiation Response selecting CredSSP.
 * Bytes that cannot start a TPKT (version 3) end the connection, as xrdp's listener does: a fake
 * that kept it open in silence made nmap -sV wait out each of its ten earlier probes (~5 s each).
 */
export function startRdp(): Promise<Listener> {
  return tcpListener('rdp', (socket) => {
    framed(socket, (buffer) => {
      if (buffer.length > 0 && buffer[0] !== 3) {
        socket.destroy();
        return 0;
      }
      if (buffer.length < 4) return 0;
      const length = buffer.readUInt16BE(2);
      if (buffer.length < length) return 0;
      socket.write(Buffer.from([0x03, 0, 0, 0x13, 0x0e, 0xd0, 0, 0, 0x12, 0x34, 0, 0x02, 0x1f, 0x08, 0, 0x02, 0, 0, 0]));
      return length;
    });
  });
}

/** memcached's text protocol: version, stats, ERROR for anything else. */
export function startMemcached(): Promise<Listener> {
  return tcpListener('memcached', (socket) => {
    lines(socket, (line) => {
      const command = line.trim().split(/\s+/)[0];
      if (command === 'version') socket.write('VERSION 1.6.21\r\n');
      else if (command === 'stats')
        socket.write(
          [
            'pid 4242',
            'uptime 3600',
            `time ${Math.floor(Date.now() / 1000)}`,
            'version 1.6.21',
            'curr_connections 2',
            'curr_items 17',
            'total_items 40',
          ]
            .map((stat) => `STAT ${stat}\r\n`)
            .join('') + 'END\r\n',
        );
      else socket.write('ERROR\r\n');
    });
  });
}

const MONGO_VERSION = '5.0.24';

function mongoHeader(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const header = Buffer.alloc(16);
  header.writeInt32LE(length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return header;
}

function mongoReply(command: BsonDocument, requireAuth: boolean): BsonDocument {
  const name = Object.keys(command)[0]?.toLowerCase();
  if (name === 'hello' || name === 'ismaster')
    return {
      helloOk: true,
      isWritablePrimary: true,
      ismaster: true,
      maxBsonObjectSize: 16777216,
      maxWireVersion: 13,
      minWireVersion: 0,
      ok: 1,
    };
  if (name === 'buildinfo') return { version: MONGO_VERSION, gitVersion: 'e3b2f3a', bits: 64, maxBsonObjectSize: 16777216, ok: 1 };
  if (name === 'serverstatus' && !requireAuth)
    return { host: 'netscan-test', version: MONGO_VERSION, process: 'mongod', pid: 4242, uptime: 3600, ok: 1 };
  if (requireAuth)
    return { ok: 0, errmsg: `command ${Object.keys(command)[0]} requires authentication`, code: 13, codeName: 'Unauthorized' };
  if (name === 'listdatabases') return { databases: [{ name: 'admin' }, { name: 'config' }, { name: 'shop' }], totalSize: 0, ok: 1 };
  return { ok: 0, errmsg: `no such command: '${Object.keys(command)[0]}'`, code: 59, codeName: 'CommandNotFound' };
}

/**
 * mongod 5.0's wire protocol: OP_MSG commands (hello, buildInfo, listDatabases) and legacy
 * OP_QUERY on `<db>.$cmd` answered with OP_REPLY; an HTTP request gets mongod's plain-text notice.
 */
export function startMongo(requireAuth = false): Promise<Listener> {
  let nextId = 1000;
  return tcpListener('mongodb', (socket) => {
    framed(socket, (buffer) => {
      if (buffer.length >= 4 && /^(GET|HEAD|POST|OPTIONS) /.test(buffer.toString('latin1', 0, 8))) {
        const text = 'It looks like you are trying to access MongoDB over HTTP on the native driver port.\n';
        socket.end(`HTTP/1.0 200 OK\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${text.length}\r\n\r\n${text}`);
        return buffer.length;
      }
      if (buffer.length < 16) return 0;
      const length = buffer.readInt32LE(0);
      if (length < 16 || length > 48 * 1024 * 1024) {
        socket.destroy();
        return buffer.length;
      }
      if (buffer.length < length) return 0;
      const requestId = buffer.readInt32LE(4);
      const opCode = buffer.readInt32LE(12);
      if (opCode === 2013) {
        const [command] = decodeBson(buffer, 21);
        const body = encodeBson(mongoReply(command, requireAuth));
        const flags = Buffer.from([0, 0, 0, 0, 0]);
        socket.write(Buffer.concat([mongoHeader(16 + flags.length + body.length, nextId++, requestId, 2013), flags, body]));
      } else if (opCode === 2004) {
        const nameEnd = buffer.indexOf(0, 20);
        const [command] = decodeBson(buffer, nameEnd + 1 + 8);
        const body = encodeBson(mongoReply(command, requireAuth));
        const fields = Buffer.alloc(20);
        fields.writeInt32LE(1, 16); // numberReturned
        socket.write(Buffer.concat([mongoHeader(16 + 20 + body.length, nextId++, requestId, 1), fields, body]));
      } else socket.destroy();
      return length;
    });
  });
}

async function httpJsonListener(
  name: string,
  route: (path: string) => { status: number; headers: Record<string, string>; body: string },
): Promise<Listener> {
  const sockets = new Set<Socket>();
  const server = createHttpServer((request, response) => {
    const answer = route((request.url ?? '/').split('?')[0]);
    response.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
    response.end(answer.body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return { name, port: await listen(server), close: closer(server, sockets) };
}

/**
 * Elasticsearch 7.10 (OSS) without security, as its Netty HTTP layer answers: the status line in
 * the request's HTTP version, lowercase headers, Jackson's pretty-printed root document, and
 * cluster health.
 */
export function startElasticsearch(): Promise<Listener> {
  const root =
    '{\n  "name" : "node-1",\n  "cluster_name" : "netscan-test",\n  "cluster_uuid" : "o3xJ2Vt2QzGw3Y0p5g3P6w",\n  "version" : {\n' +
    '    "number" : "7.10.2",\n    "build_flavor" : "oss",\n    "build_type" : "deb",\n    "build_hash" : "747e1cc71def077253878a59143c1f785afa92b9",\n' +
    '    "build_date" : "2021-01-13T00:42:12.435326Z",\n    "build_snapshot" : false,\n    "lucene_version" : "8.7.0",\n' +
    '    "minimum_wire_compatibility_version" : "6.8.0",\n    "minimum_index_compatibility_version" : "6.0.0-beta1"\n  },\n' +
    '  "tagline" : "You Know, for Search"\n}\n';
  const health =
    '{"cluster_name":"netscan-test","status":"green","timed_out":false,"number_of_nodes":1,"number_of_data_nodes":1,"active_primary_shards":0,"active_shards":0}';
  return tcpListener('elasticsearch', (socket) => {
    framed(socket, (buffer) => {
      const end = buffer.indexOf('\r\n\r\n');
      if (end === -1) {
        if (buffer.length > 8192 || (buffer.length >= 4 && !/^[A-Z]+ /.test(buffer.toString('latin1', 0, 8)))) {
          socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
          return buffer.length;
        }
        return 0;
      }
      const request = /^([A-Z]+) (\S+) HTTP\/(1\.[01])/.exec(buffer.toString('latin1', 0, end));
      const version = request?.[3] ?? '1.1';
      const path = (request?.[2] ?? '/').split('?')[0];
      const [status, body] = !request
        ? ['400 Bad Request', '']
        : path === '/'
          ? ['200 OK', root]
          : path === '/_cluster/health'
            ? ['200 OK', health]
            : ['404 Not Found', '{"error":"Incorrect HTTP method for uri","status":404}'];
      socket.end(
        `HTTP/${version} ${status}\r\ncontent-type: application/json; charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return buffer.length;
    });
  });
}

/** The Docker Engine API (24.0) on TCP without TLS: /version, /_ping, 404 JSON elsewhere. */
export function startDocker(): Promise<Listener> {
  const headers = {
    'api-version': '1.43',
    'content-type': 'application/json',
    'docker-experimental': 'false',
    ostype: 'linux',
    server: 'Docker/24.0.7 (linux)',
  };
  return httpJsonListener('docker', (path) => {
    if (path === '/version')
      return {
        status: 200,
        headers,
        body: JSON.stringify({
          Version: '24.0.7',
          ApiVersion: '1.43',
          MinAPIVersion: '1.12',
          GitCommit: '311b9ff',
          GoVersion: 'go1.20.10',
          Os: 'linux',
          Arch: 'amd64',
          KernelVersion: '6.1.0',
        }),
      };
    if (path === '/_ping') return { status: 200, headers: { ...headers, 'content-type': 'text/plain' }, body: 'OK' };
    return { status: 404, headers, body: JSON.stringify({ message: 'page not found' }) };
  });
}

/** Accepts and never says a word. */
export function startSilent(): Promise<Listener> {
  return tcpListener('unknown', () => {});
}

/** A greeting that never ends: "220-" continuation lines without pause until the client goes. */
export function startFlood(): Promise<Listener> {
  const chunk = Buffer.from('220-more of the greeting\r\n'.repeat(2048), 'latin1');
  return tcpListener('unknown', (socket) => {
    const pump = (): void => {
      while (!socket.destroyed && socket.write(chunk));
      if (!socket.destroyed) socket.once('drain', pump);
    };
    pump();
  });
}
