import { connect as netConnect, type Socket } from 'node:net';
import type { VettedAddress } from './target-policy.ts';

export type ConnectFailure = 'refused' | 'timeout' | 'unreachable' | 'reset' | 'aborted' | 'other';

/** A TCP connection could not be made; `code` tells closed (refused) from filtered (timeout). */
export class ConnectFailed extends Error {
  override readonly name = 'ConnectFailed';
  constructor(
    readonly code: ConnectFailure,
    message: string,
  ) {
    super(message);
  }
}

function classify(error: NodeJS.ErrnoException): ConnectFailure {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return 'unreachable';
    case 'ECONNRESET':
      return 'reset';
    default:
      return 'other';
  }
}

export interface ConnectOptions {
  address: VettedAddress;
  port: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Connects to a vetted address, never to a name: the address was resolved and checked once
 * (target-policy.ts), so nothing can re-resolve it elsewhere. Resolves with the connected socket
 * (no timeout left on it: callers bound their reads with SocketReader); rejects with ConnectFailed.
 */
export function connectTcp({ address, port, timeoutMs, signal }: ConnectOptions): Promise<Socket> {
  if (!address.vetted) return Promise.reject(new ConnectFailed('other', 'refusing to connect to an address that was not vetted'));
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ConnectFailed('aborted', 'the scan was stopped'));
    const socket = netConnect({ host: address.address, port, family: address.family, noDelay: true });
    const timer = setTimeout(() => fail(new ConnectFailed('timeout', `no answer from ${label()} within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = (): void => fail(new ConnectFailed('aborted', 'the scan was stopped'));
    signal?.addEventListener('abort', onAbort, { once: true });
    function label(): string {
      return address.family === 6 ? `[${address.address}]:${port}` : `${address.address}:${port}`;
    }
    function cleanup(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
      socket.removeListener('connect', onConnect);
    }
    function fail(error: ConnectFailed): void {
      cleanup();
      socket.destroy();
      reject(error);
    }
    function onError(error: NodeJS.ErrnoException): void {
      fail(new ConnectFailed(classify(error), `${label()}: ${error.code ?? error.message}`));
    }
    function onConnect(): void {
      cleanup();
      resolve(socket);
    }
    socket.once('error', onError);
    socket.once('connect', onConnect);
  });
}
