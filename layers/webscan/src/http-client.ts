/**
 * webscan's HTTP client: every request goes to the target's origin only, over a connection to the
 * address vetted once at the start (no second lookup, so no DNS rebinding), never follows a
 * redirect (the crawler decides what a same-origin Location means), bounds every body in bytes and
 * every response in time, and spaces all requests of the scan so that no second holds more than
 * `rate` of them. Methods are GET, HEAD, OPTIONS, and the one TRACE of the methods check.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { VettedAddress } from '../../../lib/target-policy.ts';

export type Method = 'GET' | 'HEAD' | 'OPTIONS' | 'TRACE';

export interface WebResponse {
  url: URL;
  method: Method;
  status: number;
  /** Lower-case names; repeated headers joined with ", " (Set-Cookie kept apart in `setCookies`). */
  headers: Record<string, string>;
  setCookies: string[];
  body: Buffer;
  /** The body was longer than the cap: `body` is its first bytes only. */
  truncated: boolean;
}

export type RequestFailure = 'timeout' | 'network' | 'aborted';

/** No response (or no complete head) within the bounds. */
export class RequestFailed extends Error {
  override readonly name = 'RequestFailed';
  constructor(
    readonly code: RequestFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface OriginClientOptions {
  origin: URL;
  address: VettedAddress;
  /** Requests per second, all requests together. */
  rate: number;
  timeoutMs: number;
  maxBodyBytes: number;
  /** PEM certificates trusted beside Node's roots (EXTRA_CA_FILE). */
  extraCa?: string;
  signal: AbortSignal;
  userAgent: string;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Milliseconds since an arbitrary start; injectable for the rate limiter's tests. */
  clock?: () => number;
  /** The scope credential's header, sent on every request but TRACE (its answer echoes the request). */
  credentialHeader?: { name: string; value: string };
}

/**
 * A rate limiter: requests leave one at a time, each at least a little more than `1000 / rate` ms
 * after the one before actually left (not after its planned slot, so a late timer cannot bunch
 * two). The 2 % margin keeps `rate + 1` requests out of any one second as the server sees them.
 */
export class RateLimiter {
  private last = Number.NEGATIVE_INFINITY;
  private chain: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;
  constructor(
    rate: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.intervalMs = (1000 / rate) * 1.02;
  }

  /** Resolves when the caller may send. */
  take(signal: AbortSignal): Promise<void> {
    const turn = this.chain.then(async () => {
      const wait = this.last + this.intervalMs - this.clock();
      if (wait > 0) await sleep(wait, signal);
      if (signal.aborted) throw new RequestFailed('aborted', 'the scan was stopped');
      this.last = this.clock();
    });
    this.chain = turn.catch(() => {});
    return turn;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RequestFailed('aborted', 'the scan was stopped'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, Math.ceil(ms));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

export class OriginClient {
  readonly origin: URL;
  /** Requests sent, by method. */
  readonly sent: Record<Method, number> = { GET: 0, HEAD: 0, OPTIONS: 0, TRACE: 0 };
  /** When each request left (performance.now()), for the scan's own account of its rate. */
  readonly sentAt: number[] = [];
  private readonly limiter: RateLimiter;
  private readonly agent: http.Agent;
  private readonly lookup: LookupFunction;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly concurrency: number;

  constructor(
    private readonly options: OriginClientOptions,
    limiter?: RateLimiter,
    sentAt?: number[],
  ) {
    this.origin = new URL(options.origin.origin);
    // Clients of one scan share the limiter: `rate` bounds the scan, whichever origin it is on.
    this.limiter = limiter ?? new RateLimiter(options.rate, options.clock);
    if (sentAt) this.sentAt = sentAt;
    this.concurrency = options.concurrency ?? 4;
    const isHttps = this.origin.protocol === 'https:';
    const { address } = options;
    this.lookup = (_host, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address: address.address, family: address.family }]);
      else callback(null, address.address, address.family);
    };
    this.agent = isHttps
      ? new https.Agent({
          keepAlive: true,
          maxSockets: this.concurrency,
          ...(options.extraCa ? { ca: [...rootCertificates, options.extraCa] } : {}),
        })
      : new http.Agent({ keepAlive: true, maxSockets: this.concurrency });
  }

  /** The same client's settings for another origin on the same host (http:// upgraded to https://). */
  forOrigin(origin: URL): OriginClient {
    return new OriginClient({ ...this.options, origin }, this.limiter, this.sentAt);
  }

  close(): void {
    this.agent.destroy();
  }

  private async slot(): Promise<void> {
    if (this.inFlight >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight += 1;
  }

  private release(): void {
    this.inFlight -= 1;
    this.waiting.shift()?.();
  }

  async request(
    url: URL,
    options: { method?: Method; headers?: Record<string, string>; maxBodyBytes?: number } = {},
  ): Promise<WebResponse> {
    if (url.origin !== this.origin.origin) throw new Error(`refusing a request to ${url.origin}: the scan stays on ${this.origin.origin}`);
    const method = options.method ?? 'GET';
    await this.slot();
    try {
      await this.limiter.take(this.options.signal);
      this.sent[method] += 1;
      this.sentAt.push(performance.now());
      const credential = this.options.credentialHeader;
      const headers =
        credential && method !== 'TRACE'
          ? { [credential.name.toLowerCase()]: credential.value, ...options.headers }
          : (options.headers ?? {});
      return await this.send(url, method, headers, options.maxBodyBytes ?? this.options.maxBodyBytes);
    } finally {
      this.release();
    }
  }

  private send(url: URL, method: Method, headers: Record<string, string>, maxBytes: number): Promise<WebResponse> {
    const { signal, timeoutMs } = this.options;
    const isHttps = url.protocol === 'https:';
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const client = isHttps ? https : http;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new RequestFailed('aborted', 'the scan was stopped'));
      let settled = false;
      const finish = (outcome: WebResponse | RequestFailed): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (outcome instanceof RequestFailed) reject(outcome);
        else resolve(outcome);
      };
      const onAbort = (): void => {
        req.destroy();
        finish(new RequestFailed('aborted', 'the scan was stopped'));
      };
      const timer = setTimeout(() => {
        req.destroy();
        finish(new RequestFailed('timeout', `${method} ${url.pathname}: no complete response within ${timeoutMs} ms`));
      }, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      const req = client.request(
        {
          host: hostname,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method,
          headers: { 'user-agent': this.options.userAgent, accept: '*/*', 'accept-encoding': 'identity', ...headers },
          agent: this.agent,
          lookup: this.lookup,
          ...(isHttps && isIP(hostname) === 0 ? { servername: hostname } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let total = 0;
          const done = (truncated: boolean): void => {
            const flat: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined && name !== 'set-cookie') flat[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            finish({
              url,
              method,
              status: res.statusCode ?? 0,
              headers: flat,
              setCookies: res.headers['set-cookie'] ?? [],
              body: Buffer.concat(chunks),
              truncated,
            });
          };
          res.on('data', (chunk: Buffer) => {
            if (settled) return;
            const room = maxBytes - total;
            total += chunk.length;
            if (chunk.length > room) {
              chunks.push(chunk.subarray(0, Math.max(0, room)));
              done(true);
              // The rest is not read: the connection goes, not back to the pool.
              res.destroy();
              req.destroy();
            } else chunks.push(chunk);
          });
          res.on('end', () => done(false));
          res.on('error', (error) => finish(new RequestFailed('network', `${method} ${url.pathname}: ${error.message}`)));
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) =>
        finish(new RequestFailed('network', `${method} ${url.pathname}: ${error.code ?? error.message}`)),
      );
      req.end();
    });
  }
}
