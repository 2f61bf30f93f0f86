import { lookup as systemDnsLookup } from 'node:dns/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import type { Fetch, FetchOptions, FetchResponse } from './fetch.ts';
import { blockedAddressReason } from '../address-policy.ts';

/**
 * The vetted HTTP client (DESIGN §11): mailscan's reputation checks, vendor APIs and any engine
 * that fetches. URLs come from data the scanned party controls (DNS records, redirects), so every
 * hop is vetted: scheme, resolved addresses (lib/address-policy.ts; the connection goes to the
 * vetted address, no second lookup), size and time. Credentials go only to the origins they are
 * bound to.
 */

export type FetchErrorCode =
  | 'bad_url'
  | 'scheme_not_allowed'
  | 'host_not_found'
  | 'dns_failed'
  | 'address_blocked'
  | 'too_large'
  | 'timeout'
  | 'too_many_redirects'
  | 'network';

/** Why a fetch produced no response. Carries no request headers, so no operator key leaks into a report. */
export class FetchError extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

export interface HostAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to every address it has; throws FetchError host_not_found / dns_failed. */
export type HostLookup = (hostname: string) => Promise<HostAddress[]>;

export interface SafeFetchOptions {
  /** Deadline for the whole fetch, redirects and DNS included. */
  timeoutMs: number;
  /** Default body cap; a call may lower or raise it. */
  maxBytes: number;
  /**
   * `<PREFIX>_ALLOW_PRIVATE=1`: permits private-network addresses (RFC 1918 and the like) and plain
   * http:. Loopback is not private: it needs `allowLoopback`. Link-local (cloud metadata) stays refused.
   */
  allowPrivate: boolean;
  /** `<PREFIX>_ALLOW_LOOPBACK=1` (local runs and tests only): permits loopback addresses and plain http:. */
  allowLoopback?: boolean;
  /** Host resolution; the system resolver by default, `lookupViaResolver` to share the scan's DNS. */
  lookup?: HostLookup;
  /** Replaces the system CA store for https: (tests trust their loopback server's test CA). */
  tlsCa?: string[];
  /** Redirects followed, each re-vetted; 3 by default. */
  maxRedirects?: number;
  /** The User-Agent header; `mailscan` by default. */
  userAgent?: string;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

export function makeSafeFetch(options: SafeFetchOptions): Fetch {
  const lookup = options.lookup ?? systemLookup;
  const maxRedirects = options.maxRedirects ?? 3;

  async function vet(target: URL): Promise<HostAddress> {
    const policy = { allowPrivate: options.allowPrivate, allowLoopback: options.allowLoopback ?? false };
    const schemeAllowed = target.protocol === 'https:' || (target.protocol === 'http:' && (policy.allowPrivate || policy.allowLoopback));
    if (!schemeAllowed) throw new FetchError('scheme_not_allowed', `${target.protocol} URLs are not fetched; only https:`);
    const hostname = bareHost(target);
    const family = isIP(hostname);
    const addresses = family === 0 ? await lookup(hostname) : [{ address: hostname, family: family as 4 | 6 }];
    if (addresses.length === 0) throw new FetchError('host_not_found', `${hostname} has no address`);
    // Every address is checked, not just the one used: a host mixing public and private addresses is suspect.
    for (const { address } of addresses) {
      const reason = blockedAddressReason(address, policy);
      if (reason) throw new FetchError('address_blocked', `${hostname} resolves to ${address} (${reason})`);
    }
    return addresses[0];
  }

  return async (url, callOptions = {}) => {
    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs;
    const maxBytes = callOptions.maxBytes ?? options.maxBytes;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const timeoutError = (): FetchError => new FetchError('timeout', `no complete response within ${timeoutMs} ms`);
    try {
      let target = parseUrl(url);
      let headers = callOptions.headers ?? {};
      let method = callOptions.method ?? 'GET';
      let body = callOptions.body;
      const credentialOrigins = new Set((callOptions.credential?.origins ?? []).map((origin) => parseUrl(origin).origin));
      for (let hop = 0; ; hop += 1) {
        const address = await raceAbort(vet(target), controller.signal, timeoutError);
        const credential = credentialOrigins.has(target.origin) ? callOptions.credential?.headers : undefined;
        const outcome = await request(target, address, await clientFor(target), {
          method,
          body,
          headers: credential ? { ...headers, ...credential } : headers,
          userAgent: options.userAgent ?? 'mailscan',
          maxBytes,
          signal: controller.signal,
          timeoutError,
          tlsCa: options.tlsCa,
        });
        if (!('location' in outcome)) return outcome;
        if (hop >= maxRedirects) throw new FetchError('too_many_redirects', `more than ${maxRedirects} redirects`);
        const next = parseUrl(outcome.location, target);
        // Caller headers can carry API keys; they go only to the origin they were meant for.
        if (next.origin !== target.origin) headers = {};
        // As browsers do: only 307 and 308 repeat a POST; the others turn it into a GET without a body.
        if (outcome.status !== 307 && outcome.status !== 308) {
          method = 'GET';
          body = undefined;
        }
        target = next;
      }
    } finally {
      clearTimeout(timer);
    }
  };
}

/** One hop of a fetch: what it sends, and the size cap, abort signal and TLS roots it is bound by. */
interface RequestOptions {
  method: NonNullable<FetchOptions['method']>;
  body: string | undefined;
  headers: Record<string, string>;
  userAgent: string;
  maxBytes: number;
  signal: AbortSignal;
  timeoutError: () => FetchError;
  tlsCa: string[] | undefined;
}

/**
 * node:https (with node:tls) is loaded at the first https: fetch, not with the scan: it cost ~20 ms
 * of CPU at every scan's start-up, and most scans fetch nothing (only a domain with MTA-STS or a
 * BIMI logo is fetched from), or fetch while they wait on DNS anyway.
 */
async function clientFor(target: URL): Promise<{ request: typeof import('node:https').request }> {
  // `.default`, the module itself: the bundle's import() of a built-in yields only that (the
  // CommonJS module), where Node's own ES facade also has named exports.
  return target.protocol === 'https:' ? (await import('node:https')).default : (await import('node:http')).default;
}

function request(
  target: URL,
  address: HostAddress,
  client: { request: typeof import('node:https').request },
  options: RequestOptions,
): Promise<FetchResponse | { location: string; status: number }> {
  return new Promise((resolve, reject) => {
    const hostname = bareHost(target);
    // Connect to the vetted address: resolving again at connect time would reopen DNS rebinding.
    const pinned: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [address]);
      else callback(null, address.address, address.family);
    };
    const isHttps = target.protocol === 'https:';
    const req = client.request(
      {
        host: hostname,
        port: target.port === '' ? undefined : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method: options.method,
        headers: {
          'user-agent': options.userAgent,
          accept: '*/*',
          'accept-encoding': 'identity',
          ...options.headers,
          ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}),
        },
        lookup: pinned,
        agent: false,
        signal: options.signal,
        ...(isHttps && options.tlsCa ? { ca: options.tlsCa } : {}),
        ...(isHttps && isIP(hostname) === 0 ? { servername: hostname } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (redirectStatuses.has(status) && location) {
          res.resume();
          resolve({ location, status });
          return;
        }
        const fail = (error: FetchError): void => {
          req.destroy();
          reject(error);
        };
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > options.maxBytes) return fail(tooLarge(options.maxBytes));
        const chunks: Buffer[] = [];
        let total = 0;
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > options.maxBytes) fail(tooLarge(options.maxBytes));
          else chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, headers: flattenHeaders(res.headers), body: new Uint8Array(Buffer.concat(chunks)) }));
        res.on('error', (error) => reject(options.signal.aborted ? options.timeoutError() : new FetchError('network', error.message)));
      },
    );
    req.on('error', (error) => reject(options.signal.aborted ? options.timeoutError() : new FetchError('network', error.message)));
    req.end(options.body);
  });
}

function tooLarge(maxBytes: number): FetchError {
  return new FetchError('too_large', `body exceeds ${maxBytes} bytes`);
}

function parseUrl(url: string, base?: URL): URL {
  try {
    return new URL(url, base);
  } catch {
    throw new FetchError('bad_url', `not a URL: ${url.slice(0, 200)}`);
  }
}

function bareHost(target: URL): string {
  return target.hostname.replace(/^\[|\]$/g, '');
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = (): void => reject(onAbort());
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

async function systemLookup(hostname: string): Promise<HostAddress[]> {
  try {
    const addresses = await systemDnsLookup(hostname, { all: true, order: 'verbatim' });
    return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') throw new FetchError('host_not_found', `${hostname} does not resolve`);
    throw new FetchError('dns_failed', `${hostname}: ${code ?? 'lookup failed'}`);
  }
}
