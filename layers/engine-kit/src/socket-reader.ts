import type { Socket } from 'node:net';

export class ReadTimeout extends Error {
  override readonly name = 'ReadTimeout';
}
/** The peer sent more than the reader's byte cap. */
export class ReadLimit extends Error {
  override readonly name = 'ReadLimit';
}
/** The peer closed (or reset) the connection before the read completed. */
export class ConnectionClosed extends Error {
  override readonly name = 'ConnectionClosed';
}

/** Returns how many bytes of `buffer` make a complete message, or null to wait for more. */
export type Framer = (buffer: Buffer) => number | null;

interface Pending {
  framer: Framer;
  resolve: (value: Buffer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Bounded reads from a socket (DESIGN §11: every network read is bounded in bytes and time). The
 * reader keeps what arrived beyond one message for the next read, counts every byte against
 * `maxBytes` (a peer that floods is cut off, not buffered), and never leaves a read waiting past its
 * timeout. One read at a time.
 */
export class SocketReader {
  private buffer: Buffer = Buffer.alloc(0);
  private received = 0;
  private closed: Error | null = null;
  private pending: Pending | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly maxBytes = 1024 * 1024,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onClose(new ConnectionClosed('the peer closed the connection')));
    socket.on('close', () => this.onClose(new ConnectionClosed('the connection closed')));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      this.onClose(new ConnectionClosed(`the connection failed: ${error.code ?? error.message}`)),
    );
  }

  /** Bytes received so far. */
  get bytesRead(): number {
    return this.received;
  }

  /** What arrived and was not read yet. */
  get buffered(): Buffer {
    return this.buffer;
  }

  private onData(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.received > this.maxBytes) {
      this.socket.destroy();
      this.closed = new ReadLimit(`the peer sent more than ${this.maxBytes} bytes`);
      this.settle();
      return;
    }
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    this.settle();
  }

  private onClose(error: Error): void {
    this.closed ??= error;
    this.settle();
  }

  private settle(): void {
    const pending = this.pending;
    if (!pending) return;
    let length: number | null;
    try {
      length = pending.framer(this.buffer);
    } catch (error) {
      this.finish(pending);
      pending.reject(error as Error);
      return;
    }
    if (length !== null) {
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      this.finish(pending);
      pending.resolve(message);
    } else if (this.closed) {
      this.finish(pending);
      pending.reject(this.closed);
    }
  }

  private finish(pending: Pending): void {
    clearTimeout(pending.timer);
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    this.pending = null;
  }

  /** The first message `framer` finds, waiting at most `timeoutMs`. */
  read(framer: Framer, timeoutMs: number, signal?: AbortSignal): Promise<Buffer> {
    if (this.pending) return Promise.reject(new Error('SocketReader: one read at a time'));
    return new Promise<Buffer>((resolve, reject) => {
      const pending: Pending = {
        framer,
        resolve,
        reject,
        signal,
        timer: setTimeout(() => {
          this.finish(pending);
          reject(new ReadTimeout(`no complete answer within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      if (signal) {
        pending.onAbort = () => {
          this.finish(pending);
          reject(new ReadTimeout('the scan was stopped'));
        };
        if (signal.aborted) return pending.onAbort();
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      this.pending = pending;
      this.settle();
    });
  }

  /** Exactly `n` bytes. */
  exactly(n: number, timeoutMs: number, signal?: AbortSignal): Promise<Buffer> {
    return this.read((buffer) => (buffer.length >= n ? n : null), timeoutMs, signal);
  }

  /** Whatever has arrived (at least one byte). */
  some(timeoutMs: number, signal?: AbortSignal): Promise<Buffer> {
    return this.read((buffer) => (buffer.length > 0 ? buffer.length : null), timeoutMs, signal);
  }

  /** Up to and including the first `delimiter`; a line longer than `maxLength` is a ReadLimit. */
  until(delimiter: string | Buffer, timeoutMs: number, maxLength = 64 * 1024, signal?: AbortSignal): Promise<Buffer> {
    const needle = typeof delimiter === 'string' ? Buffer.from(delimiter) : delimiter;
    return this.read(
      (buffer) => {
        const at = buffer.indexOf(needle);
        if (at >= 0 && at + needle.length <= maxLength) return at + needle.length;
        if (buffer.length >= maxLength) throw new ReadLimit(`no ${JSON.stringify(needle.toString())} within ${maxLength} bytes`);
        return null;
      },
      timeoutMs,
      signal,
    );
  }

  /** Whatever arrives until the peer closes or `timeoutMs` passes (never more than the cap). */
  async rest(timeoutMs: number, signal?: AbortSignal): Promise<Buffer> {
    try {
      return await this.read(() => (this.closed ? this.buffer.length : null), timeoutMs, signal);
    } catch (error) {
      if (error instanceof ReadTimeout || error instanceof ConnectionClosed) {
        const rest = this.buffer;
        this.buffer = Buffer.alloc(0);
        return rest;
      }
      throw error;
    }
  }
}
