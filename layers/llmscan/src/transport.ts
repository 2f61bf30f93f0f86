/**
 * The engine's HTTP, on lib/'s vetted client (lib/http/safe-fetch.ts): every answer bounded in
 * bytes and time, every address vetted. The client's lookup is pinned to the one address the
 * target's name was resolved and vetted to at the scan's start (the kit's target policy), so no
 * request resolves the name again (no DNS rebinding), and no other host is ever reached. Redirects
 * are never followed (a 3xx is a failed attempt: an API that redirects may be sending us anywhere).
 */
import { FetchError, makeSafeFetch } from '../../../lib/http/safe-fetch.ts';
import type { VettedAddress } from '../../../lib/target-policy.ts';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Readonly<Record<string, string>>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

/** `network` may succeed when repeated; `refused` (a blocked address, a redirect) never does. */
export type TransportFailure = 'timeout' | 'too_large' | 'network' | 'refused' | 'aborted';

export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: TransportFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface Transport {
  /** `authenticated`: with the scan's credential (when it has one), bound to the target's origin. */
  send(request: HttpRequest, options: { timeoutMs: number; signal: AbortSignal; authenticated?: boolean }): Promise<HttpResponse>;
}

export interface TransportOptions {
  /** The target's host name and the address it was vetted to. */
  host: string;
  address: VettedAddress;
  /** Whether the target policy admits private addresses (the client then speaks plain http: too). */
  allowPrivate: boolean;
  /** Whether it admits loopback addresses (local runs: plain http: too). */
  allowLoopback: boolean;
  /** Largest answer read, in bytes. */
  maxBytes: number;
  /** Trust anchors for https: (Node's roots plus EXTRA_CA_FILE), when EXTRA_CA_FILE is set. */
  ca?: string[];
  /** The credential's headers and the one origin they may go to (the target's, its host allowed). */
  credential?: { headers: Record<string, string>; origin: string };
}

function failure(error: FetchError): TransportError {
  switch (error.code) {
    case 'timeout':
      return new TransportError('timeout', error.message);
    case 'too_large':
      return new TransportError('too_large', error.message);
    case 'network':
      return new TransportError('network', error.message);
    case 'too_many_redirects':
      return new TransportError('refused', 'the endpoint redirected (redirects are not followed)');
    default:
      return new TransportError('refused', error.message);
  }
}

export function vettedTransport({ host, address, allowPrivate, allowLoopback, maxBytes, ca, credential }: TransportOptions): Transport {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  const fetch = makeSafeFetch({
    timeoutMs: 60_000,
    maxBytes,
    allowPrivate,
    allowLoopback,
    maxRedirects: 0,
    userAgent: 'llmscan',
    tlsCa: ca,
    lookup: (name) => {
      if (name.toLowerCase() !== bare) return Promise.reject(new FetchError('address_blocked', `${name} is not the scan's target`));
      return Promise.resolve([{ address: address.address, family: address.family }]);
    },
  });
  return {
    async send(request, { timeoutMs, signal, authenticated = true }) {
      if (signal.aborted) throw new TransportError('aborted', 'the scan was stopped');
      try {
        const response = await fetch(request.url.href, {
          method: request.method,
          headers: { ...request.headers },
          body: request.body,
          timeoutMs,
          maxBytes,
          ...(authenticated && credential ? { credential: { headers: credential.headers, origins: [credential.origin] } } : {}),
        });
        return { status: response.status, headers: response.headers, body: Buffer.from(response.body) };
      } catch (error) {
        if (error instanceof FetchError) throw failure(error);
        throw error;
      }
    },
  };
}
