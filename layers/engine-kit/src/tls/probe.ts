/**
 * One probe: a fresh connection, one ClientHello, and the server's answer read record by record
 * up to what the caller needs (the ServerHello, or everything up to ServerHelloDone). Every read is
 * bounded in bytes (the link's SocketReader cap, the handshake assembler's message cap) and time
 * (the per-read timeout and the scan's deadline).
 *
 * A refusal (an alert) is a value; anything that is not TLS, a timeout, or a failed connect is
 * thrown, and the caller's check becomes `error`. A connection closed or reset before the answer
 * is not a refusal (a flaky middlebox or an overloaded server does it as readily as a strict one):
 * the hello is sent again on a new connection, and when every attempt is cut it is thrown.
 */
import { retry } from '../../../../lib/retry.ts';
import { ConnectionClosed, type SocketReader } from '../socket-reader.ts';
import { type ClientHelloOptions, clientHelloRecord, sslv2ClientHello } from './client-hello.ts';
import {
  ContentType,
  HandshakeAssembler,
  HandshakeType,
  NotTls,
  ProtocolVersion,
  describeAlert,
  parseRecordHeader,
  type TlsRecord,
} from './records.ts';
import { type ServerHello, dhGroupBits, parseCertificateList, parseServerHello, parseSslv2ServerHello } from './server-hello.ts';
import { suiteByCode } from './suites.ts';

/** An open connection to the endpoint, past any STARTTLS preamble. */
export interface Link {
  reader: SocketReader;
  write(bytes: Buffer): void;
  close(): void;
}

/** Opens a link for one probe; `what` names the probe in errors and progress. */
export type Connector = (what: string) => Promise<Link>;

export interface ProbeTiming {
  /** Longest wait for one read. */
  readTimeoutMs: number;
  signal?: AbortSignal;
}

/** Largest handshake message accepted (a certificate chain of this size is already absurd). */
export const MAX_HANDSHAKE_MESSAGE = 128 * 1024;

export type HelloOutcome =
  | {
      kind: 'hello';
      hello: ServerHello;
      /** DER certificates, leaf first, when the probe read that far (TLS 1.2 and older). */
      certificates: Buffer[];
      /** The DH prime's size when the server chose a DHE suite and the probe read its key exchange. */
      dhBits?: number;
      /** The link, still open, when the caller asked to keep it (the Heartbleed probe). */
      link?: Link;
    }
  | { kind: 'refused'; reason: string };

export interface HelloProbe {
  hello: ClientHelloOptions;
  /** Read on to ServerHelloDone (certificates, key exchange) instead of stopping at the ServerHello. */
  full?: boolean;
  /** Leave the link open for the caller, who must close it. */
  keepOpen?: boolean;
}

export async function readRecord(reader: SocketReader, timing: ProbeTiming): Promise<TlsRecord> {
  const header = parseRecordHeader(await reader.exactly(5, timing.readTimeoutMs, timing.signal));
  const fragment = header.length === 0 ? Buffer.alloc(0) : await reader.exactly(header.length, timing.readTimeoutMs, timing.signal);
  return { type: header.type, version: header.version, fragment };
}

function closedBeforeAnswer(error: unknown, reader: SocketReader): boolean {
  return error instanceof ConnectionClosed && reader.buffered.length === 0;
}

/** The connection was closed or reset before the server answered the hello: no verdict either way. */
export class ConnectionCut extends Error {
  override readonly name = 'ConnectionCut';
}

/** Hellos sent in all when the connection keeps being cut before an answer. */
export const HELLO_ATTEMPTS = 3;

/**
 * Sends one ClientHello on a new link and reads the answer; a connection cut before the answer
 * is retried (HELLO_ATTEMPTS in all) and then thrown as ConnectionCut.
 */
export function probeHello(connect: Connector, probe: HelloProbe, timing: ProbeTiming): Promise<HelloOutcome> {
  return retry(() => probeHelloOnce(connect, probe, timing), {
    attempts: HELLO_ATTEMPTS,
    baseMs: 50,
    maxMs: 400,
    retryable: (error) => error instanceof ConnectionCut,
    signal: timing.signal,
  });
}

async function probeHelloOnce(connect: Connector, probe: HelloProbe, timing: ProbeTiming): Promise<HelloOutcome> {
  const link = await connect(`hello ${probe.hello.version.toString(16)}`);
  let keep = false;
  try {
    link.write(clientHelloRecord(probe.hello));
    const outcome = await readAnswer(link, probe, timing);
    if (outcome.kind === 'hello' && probe.keepOpen) {
      keep = true;
      return { ...outcome, link };
    }
    return outcome;
  } finally {
    if (!keep) link.close();
  }
}

async function readAnswer(link: Link, probe: HelloProbe, timing: ProbeTiming): Promise<HelloOutcome> {
  const assembler = new HandshakeAssembler(MAX_HANDSHAKE_MESSAGE);
  let hello: ServerHello | undefined;
  let certificates: Buffer[] = [];
  let dhBits: number | undefined;
  for (;;) {
    let record: TlsRecord;
    try {
      record = await readRecord(link.reader, timing);
    } catch (error) {
      if (!hello && closedBeforeAnswer(error, link.reader))
        throw new ConnectionCut(`the connection was cut before any answer (${(error as Error).message}), ${HELLO_ATTEMPTS} times`);
      throw error;
    }
    if (record.type === ContentType.alert) {
      // A warning (unrecognized_name from a server without that name) may precede the ServerHello.
      if (record.fragment[0] === 1 && record.fragment[1] !== 0) continue;
      if (!hello) return { kind: 'refused', reason: describeAlert(record.fragment) };
      throw new NotTls(`the server sent a ${describeAlert(record.fragment)} after its ServerHello`);
    }
    if (record.type === ContentType.changeCipherSpec && hello) return { kind: 'hello', hello, certificates, dhBits };
    if (record.type !== ContentType.handshake) {
      throw new NotTls(`expected a handshake record, got content type ${record.type}`);
    }
    for (const message of assembler.push(record.fragment)) {
      if (!hello) {
        if (message.type !== HandshakeType.serverHello)
          throw new NotTls(`expected a ServerHello, got handshake message type ${message.type}`);
        hello = parseServerHello(message.body);
        const encryptedAfter = hello.version === ProtocolVersion.tls13 || hello.helloRetry;
        const needsKeyExchange = suiteByCode(hello.suite).dhe && !encryptedAfter;
        if (encryptedAfter || (!probe.full && !needsKeyExchange)) return { kind: 'hello', hello, certificates, dhBits };
        continue;
      }
      if (message.type === HandshakeType.certificate) certificates = parseCertificateList(message.body);
      if (message.type === HandshakeType.serverKeyExchange && suiteByCode(hello.suite).dhe) {
        dhBits = dhGroupBits(message.body);
        if (!probe.full) return { kind: 'hello', hello, certificates, dhBits };
      }
      if (message.type === HandshakeType.serverHelloDone) return { kind: 'hello', hello, certificates, dhBits };
    }
  }
}

export type Sslv2Outcome = { kind: 'accepted'; cipherKinds: number[] } | { kind: 'refused'; reason: string };

/** Offers SSLv2 with every cipher kind; a SERVER-HELLO naming at least one means SSLv2 is served. */
export async function probeSslv2(connect: Connector, cipherKinds: readonly number[], timing: ProbeTiming): Promise<Sslv2Outcome> {
  const link = await connect('sslv2 hello');
  try {
    link.write(sslv2ClientHello(cipherKinds));
    let head: Buffer;
    try {
      head = await link.reader.exactly(2, timing.readTimeoutMs, timing.signal);
    } catch (error) {
      if (closedBeforeAnswer(error, link.reader)) return { kind: 'refused', reason: 'the server closed the connection' };
      throw error;
    }
    if ((head[0] & 0x80) === 0) {
      // A TLS record (an alert) or something else: either way, no SSLv2 SERVER-HELLO.
      return { kind: 'refused', reason: `the server answered with bytes ${head.toString('hex')}, not an SSLv2 SERVER-HELLO` };
    }
    const length = ((head[0] & 0x7f) << 8) | head[1];
    const body = await link.reader.exactly(length, timing.readTimeoutMs, timing.signal);
    const hello = parseSslv2ServerHello(Buffer.concat([head, body]));
    if (!hello || hello.cipherKinds.length === 0) return { kind: 'refused', reason: 'an SSLv2 answer without a cipher' };
    return { kind: 'accepted', cipherKinds: hello.cipherKinds };
  } finally {
    link.close();
  }
}
