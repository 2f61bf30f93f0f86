import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** One request of the Git client (upload-pack.ts). */
export interface GitHttpRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | AsyncIterable<Uint8Array>;
}

export interface GitHttpResponse {
  url: string;
  method: string;
  statusCode: number;
  statusMessage: string;
  /** Names in lower case. */
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array>;
}

/** An address the target policy admitted for a host (the kit's resolveTarget). */
export interface VettedAddress {
  address: string;
  family: number;
}

/** Resolves a host once and returns only addresses the target policy admits; throws when none. */
export type ResolveVetted = (host: string) => Promise<readonly VettedAddress[]>;

export interface GitHttpOptions {
  resolve: ResolveVetted;
  /** The `Authorization` header value for the repository's origin; never sent elsewhere. */
  authorization?: string;
  /** The origin the authorization belongs to (`https://host[:port]`). */
  origin: string;
  /** Bytes of every response body together: the pack bound. */
  maxResponseBytes: number;
  /** A socket silent this long ends the request. */
  idleTimeoutMs: number;
  /** `http:` URLs (the loopback setting of tests and the local runtime); otherwise https only. */
  allowHttp: boolean;
  signal: AbortSignal;
  /** Who is fetching, as `name/version` (the `agent=` capability and the User-Agent). */
  agent?: string;
}

/** The server sent more than the pack bound allows. */
export class ResponseTooLarge extends Error {
  override readonly name = 'ResponseTooLarge';
  constructor(readonly limit: number) {
    super(`the repository's fetch exceeds ${limit} bytes (the pack bound)`);
  }
}

/** A URL the clone must not follow (scheme, or a redirect loop). */
export class RefusedUrl extends Error {
  override readonly name = 'RefusedUrl';
}

const MAX_REDIRECTS = 5;

async function bodyBytes(body: GitHttpRequest['body']): Promise<Buffer | undefined> {
  if (body === undefined) return undefined;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The Git client's HTTP over node:http(s), connecting only where the target policy allows:
 * each host is resolved once and vetted, and the socket's `lookup` answers with the vetted
 * addresses alone, so no second lookup can rebind the name; the Host header and TLS SNI stay the
 * name. Redirects are followed (vetted the same way) and lose the authorization when they leave
 * the origin. Every response body counts against one byte budget; the first byte over it fails
 * the fetch with ResponseTooLarge, which `failure` keeps for the caller.
 */
export class GitHttpClient {
  private readonly vetted = new Map<string, Promise<readonly VettedAddress[]>>();
  private received = 0;
  /** The first bound this client enforced, whatever the caller made of the error. */
  failure: Error | undefined;
  /** The other origin a redirect led to while a credential was held: it was not sent there. */
  credentialWithheldFrom: string | undefined;

  constructor(private readonly options: GitHttpOptions) {}

  get agent(): string {
    return this.options.agent ?? 'git-client/0';
  }

  get bytesReceived(): number {
    return this.received;
  }

  request = async (request: GitHttpRequest): Promise<GitHttpResponse> => {
    const body = await bodyBytes(request.body);
    let url = new URL(request.url);
    for (let hop = 0; ; hop += 1) {
      const response = await this.once(url, request.method ?? 'GET', request.headers ?? {}, body);
      const location = response.statusCode >= 300 && response.statusCode < 400 ? response.location : undefined;
      if (location === undefined) return { ...response.response, url: url.toString() };
      response.discard();
      if (hop >= MAX_REDIRECTS) throw new RefusedUrl(`more than ${MAX_REDIRECTS} redirects`);
      url = new URL(location, url);
      if (this.options.authorization !== undefined && url.origin !== this.options.origin) this.credentialWithheldFrom ??= url.origin;
    }
  };

  private addressesOf(host: string): Promise<readonly VettedAddress[]> {
    let addresses = this.vetted.get(host);
    if (!addresses) this.vetted.set(host, (addresses = this.options.resolve(host)));
    return addresses;
  }

  private async once(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
  ): Promise<{ statusCode: number; location?: string; response: GitHttpResponse; discard: () => void }> {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.options.allowHttp)) {
      throw new RefusedUrl(`refusing ${url.protocol} (https only)`);
    }
    if (url.username !== '' || url.password !== '') throw new RefusedUrl('refusing a URL with credentials in it');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = await this.addressesOf(host);
    const lookup = ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      if (options.all)
        callback(
          null,
          addresses.map(({ address, family }) => ({ address, family })),
        );
      else callback(null, addresses[0].address, addresses[0].family);
    }) as unknown as LookupFunction;
    const outgoing: Record<string, string> = { ...headers };
    for (const name of Object.keys(outgoing)) if (name.toLowerCase() === 'authorization') delete outgoing[name];
    if (this.options.authorization !== undefined && url.origin === this.options.origin) outgoing.Authorization = this.options.authorization;
    if (body !== undefined) outgoing['Content-Length'] = String(body.length);
    const transport = url.protocol === 'https:' ? https : http;

    return new Promise((resolve, reject) => {
      const req = transport.request(
        {
          protocol: url.protocol,
          hostname: host,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          method,
          headers: outgoing,
          lookup,
          signal: this.options.signal,
          agent: false,
        },
        (res) => {
          const statusCode = res.statusCode ?? 0;
          const responseHeaders: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          const counted = this.counted(res, req);
          resolve({
            statusCode,
            location: res.headers.location,
            discard: () => res.resume(),
            response: {
              url: url.toString(),
              method,
              statusCode,
              statusMessage: res.statusMessage ?? '',
              headers: responseHeaders,
              body: counted,
            },
          });
        },
      );
      req.setTimeout(this.options.idleTimeoutMs, () =>
        req.destroy(new Error(`no data from ${url.host} for ${this.options.idleTimeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  private async *counted(res: http.IncomingMessage, req: http.ClientRequest): AsyncGenerator<Uint8Array> {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      this.received += chunk.length;
      if (this.received > this.options.maxResponseBytes) {
        this.failure ??= new ResponseTooLarge(this.options.maxResponseBytes);
        req.destroy();
        throw this.failure;
      }
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    }
  }
}
