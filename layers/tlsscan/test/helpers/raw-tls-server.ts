import { randomBytes } from 'node:crypto';
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';

/**
 * A TLS server that only speaks the handshake's first flight, written from the RFCs and
 * independent of tlsscan's own parsers: it serves what OpenSSL 3 no longer will (SSLv2, SSLv3, RC4,
 * 3DES, DEFLATE, no renegotiation_info, a Heartbleed reply) and the broken peers of the bad-input
 * tests (stalls, garbage, a 16 MB certificate message (the largest a 24-bit length can announce)). It never completes a handshake: enough
 * for tlsscan, sslscan and testssl.sh, which decide on the ServerHello.
 */
export type Behaviour = 'normal' | 'stall' | 'stall-after-hello' | 'garbage' | 'huge-certificate' | 'banner';

export interface RawServerConfig {
  /** Accepted versions, e.g. [0x0300, 0x0301]; the highest one not above the client's is used. */
  versions: number[];
  /** Accepted suites in server preference order. */
  suites: number[];
  certificates: Buffer[];
  /** Echo renegotiation_info (RFC 5746); default true. */
  renegotiationInfo?: boolean;
  /** Pick DEFLATE when offered. */
  compression?: boolean;
  heartbeat?: 'vulnerable' | 'patched';
  /** Size of the DH prime sent with DHE suites (default 2048). */
  dhBits?: number;
  sslv2?: boolean;
  /** Send a warning unrecognized_name alert before the ServerHello, as some SNI-strict servers do. */
  warnUnrecognizedName?: boolean;
  behaviour?: Behaviour;
  /**
   * A hostile or flaky peer's answer to one ClientHello, decided per hello: a TCP reset, a plain
   * close, or a ServerHello naming another version or suite than the rules allow. Nothing (or
   * undefined) answers normally.
   */
  misbehave?: (hello: ClientHello) => Misbehaviour | undefined;
}

export type Misbehaviour = 'reset' | 'close' | { version?: number; suite?: number };

export interface RawServer {
  port: number;
  close(): Promise<void>;
}

export interface ClientHello {
  version: number;
  suites: number[];
  compression: number[];
  extensions: Set<number>;
}

function parseClientHello(body: Buffer): ClientHello {
  let at = 0;
  const version = body.readUInt16BE(at);
  at += 2 + 32;
  at += 1 + body[at];
  const suitesLength = body.readUInt16BE(at);
  at += 2;
  const suites: number[] = [];
  for (let i = 0; i < suitesLength; i += 2) suites.push(body.readUInt16BE(at + i));
  at += suitesLength;
  const compression = [...body.subarray(at + 1, at + 1 + body[at])];
  at += 1 + body[at];
  const extensions = new Set<number>();
  if (at + 2 <= body.length) {
    const end = at + 2 + body.readUInt16BE(at);
    at += 2;
    while (at + 4 <= end) {
      extensions.add(body.readUInt16BE(at));
      at += 4 + body.readUInt16BE(at + 2);
    }
  }
  return { version, suites, compression, extensions };
}

const u16 = (n: number): Buffer => Buffer.from([n >> 8, n & 0xff]);
const u24 = (n: number): Buffer => Buffer.from([n >> 16, (n >> 8) & 0xff, n & 0xff]);
const record = (type: number, version: number, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from([type]), u16(version), u16(body.length), body]);
const handshake = (type: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([type]), u24(body.length), body]);
const alert = (version: number, description: number): Buffer => record(21, version, Buffer.from([2, description]));

/** A random odd number of exactly `bits` bits (a stand-in prime: nothing computes with it). */
function fakePrime(bits: number): Buffer {
  const bytes = randomBytes(Math.ceil(bits / 8));
  const top = bits % 8 === 0 ? 8 : bits % 8;
  bytes[0] = (bytes[0] & ((1 << top) - 1)) | (1 << (top - 1));
  bytes[bytes.length - 1] |= 1;
  return bytes;
}

const DHE_SUITES = new Set([
  0x0011, 0x0012, 0x0013, 0x0014, 0x0015, 0x0016, 0x0033, 0x0039, 0x0045, 0x0067, 0x006b, 0x009e, 0x009f, 0x0088, 0xccaa,
]);
const ECDHE_SUITES = new Set([
  0xc007, 0xc008, 0xc009, 0xc00a, 0xc011, 0xc012, 0xc013, 0xc014, 0xc023, 0xc024, 0xc027, 0xc028, 0xc02b, 0xc02c, 0xc02f, 0xc030, 0xcca8,
  0xcca9,
]);

function serverKeyExchange(suite: number, version: number, dhBits: number): Buffer | null {
  const signature =
    version >= 0x0303 ? Buffer.concat([u16(0x0401), u16(256), randomBytes(256)]) : Buffer.concat([u16(256), randomBytes(256)]);
  if (DHE_SUITES.has(suite)) {
    const p = fakePrime(dhBits);
    const ys = randomBytes(p.length);
    return handshake(12, Buffer.concat([u16(p.length), p, u16(1), Buffer.from([2]), u16(ys.length), ys, signature]));
  }
  if (ECDHE_SUITES.has(suite)) {
    return handshake(12, Buffer.concat([Buffer.from([3]), u16(29), Buffer.from([32]), randomBytes(32), signature]));
  }
  return null;
}

function answerSslv2(socket: Socket, config: RawServerConfig, body: Buffer): void {
  if (!config.sslv2 || body[0] !== 1) return void socket.destroy();
  const cert = config.certificates[0];
  const specs = Buffer.from([0x01, 0x00, 0x80, 0x07, 0x00, 0xc0]);
  const hello = Buffer.concat([
    Buffer.from([4, 0, 1]),
    u16(0x0002),
    u16(cert.length),
    u16(specs.length),
    u16(16),
    cert,
    specs,
    randomBytes(16),
  ]);
  socket.write(Buffer.concat([u16(0x8000 | hello.length), hello]));
}

function answer(socket: Socket, config: RawServerConfig, hello: ClientHello): number | null {
  const misbehaviour = config.misbehave?.(hello);
  if (misbehaviour === 'reset' || misbehaviour === 'close') {
    if (misbehaviour === 'reset') socket.resetAndDestroy();
    else socket.end();
    return null;
  }
  const recordVersion = Math.min(hello.version, 0x0303);
  const version = misbehaviour?.version ?? [...config.versions].sort((a, b) => b - a).find((v) => v <= hello.version);
  if (version === undefined) {
    socket.end(alert(recordVersion, 70));
    return null;
  }
  const suite = misbehaviour?.suite ?? config.suites.find((s) => hello.suites.includes(s));
  if (suite === undefined) {
    socket.end(alert(version, 40));
    return null;
  }
  const wantsSecureRenegotiation = hello.extensions.has(0xff01) || hello.suites.includes(0x00ff);
  const extensions: Buffer[] = [];
  if ((config.renegotiationInfo ?? true) && wantsSecureRenegotiation)
    extensions.push(Buffer.concat([u16(0xff01), u16(1), Buffer.from([0])]));
  if (config.heartbeat && hello.extensions.has(15)) extensions.push(Buffer.concat([u16(15), u16(1), Buffer.from([1])]));
  const extensionBlock = extensions.length > 0 ? Buffer.concat([u16(Buffer.concat(extensions).length), ...extensions]) : Buffer.alloc(0);
  const compression = config.compression && hello.compression.includes(1) ? 1 : 0;
  const serverHello = handshake(
    2,
    Buffer.concat([
      u16(version),
      randomBytes(32),
      Buffer.from([32]),
      randomBytes(32),
      u16(suite),
      Buffer.from([compression]),
      extensionBlock,
    ]),
  );
  if (config.behaviour === 'stall-after-hello') {
    socket.write(record(22, version, serverHello));
    return version;
  }
  if (config.behaviour === 'huge-certificate') {
    socket.write(record(22, version, Buffer.concat([serverHello, Buffer.from([11]), u24(0xffffff)])));
    const chunk = Buffer.alloc(16 * 1024);
    for (let i = 0; i < 1024 && !socket.destroyed; i++) socket.write(record(22, version, chunk));
    return version;
  }
  if (config.warnUnrecognizedName) socket.write(record(21, version, Buffer.from([1, 112])));
  const certificateList = Buffer.concat(config.certificates.map((der) => Buffer.concat([u24(der.length), der])));
  const messages = [serverHello, handshake(11, Buffer.concat([u24(certificateList.length), certificateList]))];
  const keyExchange = serverKeyExchange(suite, version, config.dhBits ?? 2048);
  if (keyExchange) messages.push(keyExchange);
  messages.push(handshake(14, Buffer.alloc(0)));
  // One record per message, as OpenSSL writes them (sslscan's raw probes read them that way).
  // A message longer than a record may carry (2^14 bytes, a long chain) is split over several.
  const fragments = messages.flatMap((message) =>
    Array.from({ length: Math.ceil(message.length / 16384) }, (_, i) => message.subarray(i * 16384, (i + 1) * 16384)),
  );
  socket.write(Buffer.concat(fragments.map((fragment) => record(22, version, fragment))));
  return version;
}

function answerHeartbeat(socket: Socket, config: RawServerConfig, version: number, fragment: Buffer): void {
  if (!config.heartbeat || fragment.length < 3 || fragment[0] !== 1) return;
  const claimed = fragment.readUInt16BE(1);
  const carried = fragment.length - 3;
  const malformed = claimed + 16 > carried;
  if (malformed && config.heartbeat === 'patched') return;
  // A vulnerable server copies `claimed` bytes starting at the payload: here, random stand-in memory.
  const payload = malformed ? randomBytes(claimed) : fragment.subarray(3, 3 + claimed);
  socket.write(record(24, version, Buffer.concat([Buffer.from([2]), u16(claimed), payload, randomBytes(16)])));
}

function serve(socket: Socket, config: RawServerConfig): void {
  socket.on('error', () => {});
  if (config.behaviour === 'banner') {
    socket.write('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n');
    return;
  }
  let buffer = Buffer.alloc(0);
  let version: number | null = null;
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (config.behaviour === 'stall') return;
    if (config.behaviour === 'garbage') {
      socket.end(randomBytes(64).fill(0x41, 0, 5));
      return;
    }
    if (version === null && buffer.length >= 2 && buffer[0] & 0x80) {
      const length = ((buffer[0] & 0x7f) << 8) | buffer[1];
      if (buffer.length < 2 + length) return;
      answerSslv2(socket, config, buffer.subarray(2, 2 + length));
      buffer = Buffer.alloc(0);
      return;
    }
    while (buffer.length >= 5) {
      const length = buffer.readUInt16BE(3);
      if (buffer.length < 5 + length) return;
      const type = buffer[0];
      const fragment = buffer.subarray(5, 5 + length);
      buffer = buffer.subarray(5 + length);
      if (type === 22 && version === null && fragment[0] === 1) version = answer(socket, config, parseClientHello(fragment.subarray(4)));
      else if (type === 24 && version !== null) answerHeartbeat(socket, config, version, fragment);
      // Anything else (a ClientKeyExchange, a second hello) ends the connection: a client that tries
      // to finish the handshake learns at once that it cannot, instead of waiting for a Finished.
      else return void socket.destroy();
    }
  });
}

export async function startRawTlsServer(config: RawServerConfig): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serve(socket, config);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
