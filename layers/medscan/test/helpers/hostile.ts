/**
 * Loopback peers that misbehave on the wire (no real server does these on purpose): DICOM peers
 * that abort, announce a 4 GB PDU, or never answer after accepting; FHIR answering 10 MB or
 * redirecting to a forbidden address; MLLP peers that never close their frame, or answer a framed
 * NAK as HL7 engines do. Each records what it received.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface Peer {
  port: number;
  received: Buffer[];
  close: () => Promise<void>;
}

async function listen(server: Server | HttpServer, received: Buffer[], sockets: Set<Socket>): Promise<Peer> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A TCP peer: `onData` gets each chunk and the socket. */
export function tcpPeer(onData: (socket: Socket, chunk: Buffer, all: Buffer) => void): Promise<Peer> {
  const received: Buffer[] = [];
  const server = createServer((socket) => {
    let all = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received.push(chunk);
      all = Buffer.concat([all, chunk]);
      onData(socket, chunk, all);
    });
    socket.on('error', () => {});
  });
  return listen(server, received, new Set());
}

const pduHead = (type: number, length: number): Buffer => {
  const head = Buffer.alloc(6);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(length, 2);
  return head;
};

/** An A-ABORT in answer to the association request. */
export const abortingDicomPeer = (): Promise<Peer> =>
  tcpPeer((socket) => socket.end(Buffer.concat([pduHead(7, 4), Buffer.from([0, 0, 2, 0])])));

/** An A-ASSOCIATE-AC whose PDU length says 4 GB (0xFFFFFFFF), with a few bytes behind it, then silence. */
export const hugeAcDicomPeer = (): Promise<Peer> =>
  tcpPeer((socket) => socket.write(Buffer.concat([pduHead(2, 0xffff_ffff), Buffer.alloc(74)])));

/**
 * A well-formed A-ASSOCIATE-AC accepting the Verification context (id 1) for any AE, then:
 * `silent` answers nothing more; `no_release` answers C-ECHO but never the A-RELEASE-RQ.
 */
export function acceptingDicomPeer(mode: 'silent' | 'no_release'): Promise<Peer> {
  return tcpPeer((socket, chunk) => {
    const type = chunk.readUInt8(0);
    if (type === 1) {
      const item = (itemType: number, body: Buffer): Buffer => {
        const head = Buffer.alloc(4);
        head.writeUInt8(itemType, 0);
        head.writeUInt16BE(body.length, 2);
        return Buffer.concat([head, body]);
      };
      const fixed = Buffer.from(chunk.subarray(6, 74));
      const body = Buffer.concat([
        fixed,
        item(0x10, Buffer.from('1.2.840.10008.3.1.1.1')),
        item(0x21, Buffer.concat([Buffer.from([1, 0, 0, 0]), item(0x40, Buffer.from('1.2.840.10008.1.2'))])),
        item(0x50, item(0x51, Buffer.from([0, 0, 0x40, 0]))),
      ]);
      socket.write(Buffer.concat([pduHead(2, body.length), body]));
    } else if (type === 4 && mode === 'no_release') {
      // C-ECHO-RSP, success, on context 1.
      const element = (tag: number, value: Buffer): Buffer => {
        const head = Buffer.alloc(8);
        head.writeUInt16LE(0, 0);
        head.writeUInt16LE(tag, 2);
        head.writeUInt32LE(value.length, 4);
        return Buffer.concat([head, value]);
      };
      const us = (value: number): Buffer => Buffer.from([value & 0xff, value >> 8]);
      const command = Buffer.concat([
        element(0x0002, Buffer.from('1.2.840.10008.1.1\0')),
        element(0x0100, us(0x8030)),
        element(0x0120, us(1)),
        element(0x0800, us(0x0101)),
        element(0x0900, us(0)),
      ]);
      const pdv = Buffer.concat([Buffer.alloc(4), Buffer.from([1, 3]), command]);
      pdv.writeUInt32BE(command.length + 2, 0);
      socket.write(Buffer.concat([pduHead(4, pdv.length), pdv]));
    }
  });
}

/** MLLP that starts a frame and never closes it: `flood` keeps sending, `stall` sends a little and waits. */
export function unclosedMllpPeer(mode: 'flood' | 'stall'): Promise<Peer> {
  return tcpPeer((socket) => {
    socket.write(Buffer.from('\x0bMSH|^~\\&|ENGINE|HOSP|||20240101||ACK|1|P|2.5\rMSA|AA|1'));
    if (mode === 'flood') for (let i = 0; i < 40; i += 1) socket.write(Buffer.alloc(4096, 0x41));
  });
}

/** MLLP answering any frame with a framed NAK (AR), as HL7 engines answer a message they cannot parse. */
export const nakMllpPeer = (): Promise<Peer> =>
  tcpPeer((socket, _chunk, all) => {
    if (all.includes(Buffer.from([0x1c, 0x0d])))
      socket.write(Buffer.from('\x0bMSH|^~\\&|ENGINE|HOSP|||20240101||ACK|1|P|2.5\rMSA|AR|\r\x1c\x0d'));
  });

/** HTTP: `metadata` of 10 MB, or a redirect of every request to `location`. */
export function hostileHttp(mode: { kind: 'huge' } | { kind: 'redirect'; location: string }): Promise<Peer> {
  const received: Buffer[] = [];
  const server = createHttpServer((req, res) => {
    received.push(Buffer.from(`${req.method} ${req.url}`));
    if (mode.kind === 'redirect') {
      res.writeHead(302, { location: mode.location }).end();
      return;
    }
    if (!req.url?.endsWith('/metadata')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.write('{"resourceType":"CapabilityStatement","fhirVersion":"4.0.1","text":"');
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    const more = (): void => {
      while (sent < 10 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('"}');
    };
    res.on('error', () => {});
    more();
  });
  return listen(server, received, new Set());
}
