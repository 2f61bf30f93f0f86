/**
 * How tlsscan reaches an endpoint: a TCP connection to the vetted address (the kit's connect
 * guard), a SocketReader with a byte cap, and the STARTTLS preamble when the scope asks for one.
 * Raw probes get a `Link`; the HSTS request and the certificate fetch of a TLS 1.3-only server get a
 * Node TLS socket over the same kind of connection.
 */
import type { Socket } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { connectTcp } from '../../../../lib/connect.ts';
import { SocketReader } from '../socket-reader.ts';
import type { VettedAddress } from '../../../../lib/target-policy.ts';
import type { Connector, Link } from './probe.ts';
import { type StartTls, StartTlsFailed, negotiateStartTls } from './starttls.ts';

export interface Endpoint {
  address: VettedAddress;
  port: number;
  starttls: StartTls;
  /** Awaited before every connection (vdiscan spaces connections to an RDP port 200 ms apart). */
  beforeConnect?: () => Promise<void>;
}

export interface ConnectionLimits {
  connectTimeoutMs: number;
  readTimeoutMs: number;
  signal?: AbortSignal;
  /** Bytes one connection may receive (a certificate chain fits many times over). */
  maxBytes: number;
}

/** The server did not offer STARTTLS on a connection after it did on the first one. */
export class StartTlsUnavailable extends StartTlsFailed {}

/** A TCP connection past the STARTTLS preamble, with the reader that read the preamble. */
async function open(endpoint: Endpoint, limits: ConnectionLimits): Promise<{ socket: Socket; reader: SocketReader }> {
  await endpoint.beforeConnect?.();
  const socket = await connectTcp({
    address: endpoint.address,
    port: endpoint.port,
    timeoutMs: limits.connectTimeoutMs,
    signal: limits.signal,
  });
  const reader = new SocketReader(socket, limits.maxBytes);
  if (endpoint.starttls === 'none') return { socket, reader };
  try {
    const outcome = await negotiateStartTls(endpoint.starttls, {
      reader,
      write: (text) => socket.write(text),
      timeoutMs: limits.readTimeoutMs,
      signal: limits.signal,
    });
    if (outcome.kind === 'unavailable') throw new StartTlsUnavailable(`the server does not offer STARTTLS (${outcome.evidence})`);
    if (outcome.kind === 'deferred') throw new StartTlsUnavailable(`the server deferred STARTTLS (${outcome.evidence})`);
    return { socket, reader };
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

export function makeConnector(endpoint: Endpoint, limits: ConnectionLimits): Connector {
  return async (): Promise<Link> => {
    const { socket, reader } = await open(endpoint, limits);
    return {
      reader,
      write: (bytes) => socket.write(bytes),
      close: () => socket.destroy(),
    };
  };
}

/**
 * A Node TLS connection (any version and suite OpenSSL still has, no verification: the checks
 * verify the chain themselves). Rejects on handshake failure; the caller destroys the socket.
 */
export async function openNodeTls(endpoint: Endpoint, servername: string | undefined, limits: ConnectionLimits): Promise<TLSSocket> {
  const { socket } = await open(endpoint, limits);
  // The preamble's reader is done: the TLS socket reads from here on.
  socket.removeAllListeners('data');
  socket.removeAllListeners('end');
  socket.removeAllListeners('close');
  socket.removeAllListeners('error');
  socket.on('error', () => {});
  return new Promise<TLSSocket>((resolve, reject) => {
    const secure = tlsConnect({
      socket,
      servername,
      rejectUnauthorized: false,
      minVersion: 'TLSv1',
      ciphers: 'ALL:@SECLEVEL=0',
    });
    const timer = setTimeout(() => fail(new Error(`no TLS handshake within ${limits.readTimeoutMs} ms`)), limits.readTimeoutMs);
    const onAbort = (): void => fail(new Error('the scan was stopped'));
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    function cleanup(): void {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
    }
    function fail(error: Error): void {
      cleanup();
      secure.destroy();
      socket.destroy();
      reject(error);
    }
    secure.on('error', (error: Error) => fail(error));
    secure.once('secureConnect', () => {
      cleanup();
      resolve(secure);
    });
  });
}
