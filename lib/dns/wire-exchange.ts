import { createSocket } from 'node:dgram';
import { isIP, connect } from 'node:net';
import type { Nameserver } from './nameservers.ts';

/** One request/response exchange with one server; a failed exchange is a value, the caller retries. */
export type ExchangeResult = { ok: true; message: Buffer } | { ok: false; reason: 'timeout' | 'error'; message: string };

/**
 * The scan's deadline as the exchanges watch it: one listener on the AbortSignal for all of them
 * (see `watchDeadline`), not one each, which past ten in flight is a MaxListenersExceededWarning.
 */
export interface DeadlineWatch {
  readonly aborted: boolean;
  /** Calls `onAbort` when the deadline passes; returns the unsubscribe. */
  subscribe(onAbort: () => void): () => void;
}

/** One 'abort' listener on `signal`, fanned out to every exchange in flight. */
export function watchDeadline(signal: AbortSignal | undefined): DeadlineWatch {
  const waiting = new Set<() => void>();
  signal?.addEventListener(
    'abort',
    () => {
      for (const onAbort of [...waiting]) onAbort();
    },
    { once: true },
  );
  return {
    get aborted() {
      return signal?.aborted ?? false;
    },
    subscribe(onAbort) {
      waiting.add(onAbort);
      return () => waiting.delete(onAbort);
    },
  };
}

export interface ExchangeOptions {
  timeoutMs: number;
  /** Passes when the scan's deadline does: the exchange ends at once as a timeout. */
  deadline?: DeadlineWatch;
  /** Rejects answers that are not for this query (wrong id or question), as a spoofing guard. */
  accept: (message: Buffer) => boolean;
}

/** Settles exactly once, then releases the socket and timers however the exchange ended. */
function settleOnce(release: () => void, resolve: (result: ExchangeResult) => void, options: ExchangeOptions) {
  let done = false;
  const onAbort = () => finish({ ok: false, reason: 'timeout', message: 'scan deadline reached' });
  const timer = setTimeout(
    () => finish({ ok: false, reason: 'timeout', message: `no answer within ${options.timeoutMs} ms` }),
    options.timeoutMs,
  );
  const unsubscribe = options.deadline?.subscribe(onAbort);
  if (options.deadline?.aborted) queueMicrotask(onAbort);
  function finish(result: ExchangeResult) {
    if (done) return;
    done = true;
    clearTimeout(timer);
    unsubscribe?.();
    release();
    resolve(result);
  }
  return finish;
}

export function exchangeUdp(server: Nameserver, query: Buffer, options: ExchangeOptions): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    const finish = settleOnce(() => socket.close(), resolve, options);
    socket.on('error', (error) => finish({ ok: false, reason: 'error', message: unreachable(error) }));
    // A connected socket only receives from the server's address and port (and hears its ICMP
    // "port unreachable"); the source is checked again here so the guard does not rest on the kernel.
    socket.on('message', (message, remote) => {
      if (sameAddress(remote.address, server.host) && remote.port === server.port && options.accept(message)) finish({ ok: true, message });
    });
    socket.connect(server.port, server.host, () => {
      socket.send(query, (error) => {
        if (error) finish({ ok: false, reason: 'error', message: unreachable(error) });
      });
    });
  });
}

function sameAddress(a: string, b: string): boolean {
  if (a === b) return true;
  // IPv6 has several spellings of one address; the URL parser prints the canonical one.
  return isIP(a) === 6 && isIP(b) === 6 && new URL(`http://[${a}]`).hostname === new URL(`http://[${b}]`).hostname;
}

/** ECONNREFUSED on a connected UDP socket is the server's ICMP "port unreachable": nothing listens there. */
function unreachable(error: Error): string {
  return (error as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? 'unreachable (connection refused)' : error.message;
}

/** DNS over TCP (RFC 7766): each message is prefixed with its two-byte length. */
export function exchangeTcp(server: Nameserver, query: Buffer, options: ExchangeOptions): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    const socket = connect({ host: server.host, port: server.port });
    const finish = settleOnce(() => socket.destroy(), resolve, options);
    let buffered = Buffer.alloc(0);
    socket.on('error', (error) => finish({ ok: false, reason: 'error', message: unreachable(error) }));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 2) return;
      const size = buffered.readUInt16BE(0);
      if (buffered.length < 2 + size) return;
      const message = buffered.subarray(2, 2 + size);
      if (options.accept(message)) finish({ ok: true, message });
      else finish({ ok: false, reason: 'error', message: 'answer does not match the query' });
    });
    socket.on('end', () => finish({ ok: false, reason: 'error', message: 'connection closed before an answer' }));
  });
}
