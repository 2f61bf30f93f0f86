/**
 * The engine's HTTP: every request goes to the one address the target's name was resolved and
 * vetted to (the kit's target policy; no second lookup, so no DNS rebinding), redirects are never
 * followed (a 3xx is a failed attempt: an API that redirects may be sending us anywhere), and every
 * answer is bounded in bytes and in time.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { VettedAddress } from '../../engine-kit/src/target-policy.ts';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Readonly<Record<string, string>>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type TransportFailure = 'timeout' | 'too_large' | 'network' | 'aborted';

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
  send(request: HttpRequest, options: { timeoutMs: number; signal: AbortSignal }): Promise<HttpResponse>;
  close(): void;
}

export interface TransportOptions {
  address: VettedAddress;
  /** Largest answer read, in bytes. */
  maxBytes: number;
  /** Extra trust anchors (EXTRA_CA_FILE) beside Node's roots. */
  ca?: string;
  sockets: number;
}

export function vettedTransport({ address, maxBytes, ca, sockets }: TransportOptions): Transport {
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: address.address, family: address.family },
      ]);
    else callback(null, address.address, address.family);
  };
  const http = new HttpAgent({ keepAlive: true, maxSockets: sockets });
  const https = new HttpsAgent({
    keepAlive: true,
    maxSockets: sockets,
    ...(ca ? { ca: [...process.getBuiltinModule('node:tls').rootCertificates, ca] } : {}),
  });
  return {
    close() {
      http.destroy();
      https.destroy();
    },
    send(request, { timeoutMs, signal }) {
      return new Promise<HttpResponse>((resolve, reject) => {
        if (signal.aborted) return reject(new TransportError('aborted', 'the scan was stopped'));
        const secure = request.url.protocol === 'https:';
        const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
        const req = (secure ? httpsRequest : httpRequest)(request.url, {
          method: request.method,
          agent: secure ? https : http,
          lookup,
          headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        });
        let settled = false;
        const fail = (error: TransportError): void => {
          if (settled) return;
          settled = true;
          cleanup();
          req.destroy();
          reject(error);
        };
        const timer = setTimeout(
          () =>
            fail(
              new TransportError(
                'timeout',
                `no complete answer within ${timeoutMs < 10_000 ? (timeoutMs / 1000).toFixed(1) : Math.round(timeoutMs / 1000)} s`,
              ),
            ),
          timeoutMs,
        );
        const onAbort = (): void => fail(new TransportError('aborted', 'the scan was stopped'));
        signal.addEventListener('abort', onAbort, { once: true });
        function cleanup(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        }
        req.on('error', (error: NodeJS.ErrnoException) => fail(new TransportError('network', error.code ?? error.message)));
        req.on('response', (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) fail(new TransportError('too_large', `the answer is larger than ${Math.round(maxBytes / 1024)} KiB`));
            else chunks.push(chunk);
          });
          response.on('error', (error: NodeJS.ErrnoException) => fail(new TransportError('network', error.code ?? error.message)));
          response.on('end', () => {
            if (settled) return;
            settled = true;
            cleanup();
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
          });
        });
        req.end(body);
      });
    },
  };
}
