/**
 * Conversations over real sockets: the kit's connectTcp to the vetted address (never a name),
 * the kit's SocketReader for every read (bounded in bytes and time), and Node's TLS client for
 * TLS detection. Certificates are not verified here: the probe asks only whether the port speaks
 * TLS; certificate checks are tlsscan's (net.tls.*).
 */
import type { Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { connectTcp } from '../../../../lib/connect.ts';
import { ConnectionClosed, ReadLimit, ReadTimeout, SocketReader } from '../../../engine-kit/src/socket-reader.ts';
import type { VettedAddress } from '../../../../lib/target-policy.ts';
import type { Conversation, Dialer, Parse, TlsAlert } from './conversation.ts';

export interface DialerOptions {
  address: VettedAddress;
  port: number;
  /** The TLS server name: the target's hostname; none for an IP target. */
  servername?: string;
  connectTimeoutMs: number;
  /** How long one answer may take. */
  readTimeoutMs: number;
  /** Bytes one connection may receive before it is cut off. */
  maxBytes: number;
  signal: AbortSignal;
}

class SocketConversation implements Conversation {
  private readonly reader: SocketReader;
  private readonly chunks: Buffer[] = [];
  silent = true;
  closed = false;
  flooded = false;
  cutShort = false;

  constructor(
    private readonly socket: Socket,
    private readonly options: DialerOptions,
  ) {
    this.reader = new SocketReader(socket, options.maxBytes);
    // A probe may close before the peer's last bytes or its reset arrive; nothing is listening then.
    socket.on('error', () => {});
  }

  get received(): Buffer {
    return Buffer.concat([...this.chunks, this.reader.buffered]);
  }

  async ask<T>(request: Buffer | string | null, parse: Parse<T>, waitMs = this.options.readTimeoutMs): Promise<T | null> {
    if (request !== null && !this.closed) this.socket.write(request);
    let decided: { value: T | null } | undefined;
    try {
      const message = await this.reader.read(
        (buffer) => {
          const result = parse(buffer, false);
          if (result === 'more') return null;
          decided = { value: result };
          return buffer.length;
        },
        waitMs,
        this.options.signal,
      );
      this.note(message);
      return decided ? decided.value : null;
    } catch (error) {
      if (error instanceof ConnectionClosed) {
        this.closed = true;
        const rest = this.reader.buffered;
        this.note(rest);
        const result = rest.length > 0 ? parse(rest, true) : null;
        if (result === 'more') this.cutShort = true;
        return result === 'more' ? null : result;
      }
      if (error instanceof ReadLimit) {
        this.flooded = true;
        this.closed = true;
        this.note(this.reader.buffered.subarray(0, 512));
        return null;
      }
      if (error instanceof ReadTimeout) {
        if (this.reader.buffered.length > 0) {
          this.silent = false;
          this.cutShort = true;
        }
        return null;
      }
      throw error;
    }
  }

  private note(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.silent = false;
    // Keep at most the first 4 KiB for banners; the reader already bounds the connection.
    if (this.chunks.reduce((n, c) => n + c.length, 0) < 4096) this.chunks.push(Buffer.from(bytes.subarray(0, 4096)));
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Node's TLS error codes for an alert the server sent: it speaks TLS, but not with this client hello. */
const ALERT = /ALERT|UNSUPPORTED_PROTOCOL|NO_PROTOCOLS_AVAILABLE|NO_SHARED_CIPHER|HANDSHAKE_FAILURE/;

function handshake(socket: Socket, options: DialerOptions): Promise<TLSSocket | TlsAlert | null> {
  return new Promise((resolve) => {
    const secure = tlsConnect({
      socket,
      ...(options.servername ? { servername: options.servername } : {}),
      rejectUnauthorized: false,
      // Old servers too: detection only, no data of value crosses this connection.
      minVersion: 'TLSv1',
      ciphers: 'ALL:@SECLEVEL=0',
    });
    const timer = setTimeout(() => finish(null), options.readTimeoutMs);
    const onAbort = (): void => finish(null);
    options.signal.addEventListener('abort', onAbort, { once: true });
    function finish(result: TLSSocket | TlsAlert | null): void {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      secure.removeAllListeners('secureConnect');
      if (result !== secure) secure.destroy();
      resolve(result);
    }
    secure.once('secureConnect', () => finish(secure));
    secure.on('error', (error: NodeJS.ErrnoException) => {
      finish(ALERT.test(error.code ?? '') ? { alert: error.code ?? error.message } : null);
    });
  });
}

/** A dialer for one open port. Connection failures reject (the driver reports them); TLS that does not happen is null. */
export function makeSocketDialer(options: DialerOptions): Dialer {
  const connect = () =>
    connectTcp({ address: options.address, port: options.port, timeoutMs: options.connectTimeoutMs, signal: options.signal });
  return {
    async plain() {
      return new SocketConversation(await connect(), options);
    },
    async tls() {
      const secure = await handshake(await connect(), options);
      if (secure === null || 'alert' in secure) return secure;
      return new SocketConversation(secure, options);
    },
  };
}
