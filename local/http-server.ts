import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Context } from 'aws-lambda';
import { authorize } from '../shared/auth/authorize.ts';
import { errorResponse } from '../shared/http/error-body.ts';
import type { ApiEvent, ApiResult, StreamedApiResult } from '../shared/http/api-types.ts';
import { MAX_BODY_BYTES } from '../shared/http/middlewares.ts';
import { NotFoundError } from '../shared/domain/errors.ts';
import type { HandlerName, RouteDefinition } from '../shared/http/routes.ts';

export type LambdaLikeHandler = (event: ApiEvent, context: Context) => Promise<StreamedApiResult>;

/**
 * Extra local-only endpoints (e.g. reconcile, backfill), outside /api: POST only, raw body bytes.
 * One answers a JSON body, or a stream of JSON values sent as NDJSON as they come (progress of
 * long work).
 */
export type LocalEndpoint = (
  request: IncomingMessage,
  body: Buffer,
  requestId: string,
) => Promise<{ status: number; body: unknown } | { status: number; lines: AsyncIterable<unknown> }>;

/** The request target as sent: the raw path (never normalised) and its query. */
export interface RawTarget {
  path: string;
  query: URLSearchParams;
}

export interface LocalHttpServerOptions {
  routes: readonly RouteDefinition[];
  handlers: Record<HandlerName, LambdaLikeHandler>;
  sessionKey: string;
  localEndpoints?: Record<string, LocalEndpoint>;
  /** Serves the web UI; answers false for paths that are not the UI's. */
  serveUi?: (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;
  /** Streams raw request bodies (artifact uploads); answers false for other paths. */
  rawEndpoints?: (request: IncomingMessage, response: ServerResponse, target: RawTarget) => Promise<boolean>;
}

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  params: string[];
}

function compile(route: RouteDefinition): CompiledRoute {
  const params: string[] = [];
  const source = route.path.replace(/\/$/, '').replace(/\{(\w+)\}/g, (_match, name: string) => {
    params.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}/?$`), params };
}

/**
 * Reads at most MAX_BODY_BYTES + 1 bytes, enough for the handler to answer 413, and then stops
 * reading: the rest of a larger body is never read (it used to be read to its end, 100 MB before a
 * 413 or even a 401). `truncated`: the client sent more than was read, so the connection closes
 * after the answer instead of reading on to the next request.
 */
function readBody(request: IncomingMessage): Promise<{ bytes: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return;
      request.off('data', onData);
      request.pause();
      resolve({ bytes: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES + 1), truncated: true });
    };
    request.on('data', onData);
    request.once('end', () => resolve({ bytes: Buffer.concat(chunks), truncated: false }));
    request.once('error', reject);
  });
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body as API Gateway hands it over: text when it is valid UTF-8, else base64 with
 * isBase64Encoded, so that the JSON middleware (not a lossy decode here) decides what bytes mean.
 */
function eventBody(bytes: Buffer): { body: string | undefined; isBase64Encoded: boolean } {
  if (bytes.length === 0) return { body: undefined, isBase64Encoded: false };
  try {
    return { body: strictUtf8.decode(bytes), isBase64Encoded: false };
  } catch {
    return { body: bytes.toString('base64'), isBase64Encoded: true };
  }
}

/** One path segment decoded once; null when its percent-encoding is malformed. */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * Splits the request target into the raw path and the query. The path is matched as sent: it is
 * never normalised (`%2e%2e` and `..` are not resolved, `%2F` is not a separator), so an encoded
 * dot segment can never reach another route; parameters are then decoded once.
 */
function splitTarget(target: string): { path: string; search: string } {
  const at = target.indexOf('?');
  return at === -1 ? { path: target, search: '' } : { path: target.slice(0, at), search: target.slice(at) };
}

function lambdaContext(requestId: string): Context {
  const deadline = Date.now() + 30_000;
  return {
    awsRequestId: requestId,
    functionName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  } as Context;
}

function send(response: ServerResponse, result: ApiResult): void {
  response.writeHead(result.statusCode ?? 200, headersOf(result));
  response.end(result.body ?? '');
}

function headersOf(result: ApiResult): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string> | undefined) };
  // API Gateway turns payload 2.0 `cookies` into one Set-Cookie header each.
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  return headers;
}

/**
 * Sends a body as it is made, at the reader's pace: the next chunk is asked for only once the
 * socket took the last one, so a slow reader holds a chunk or two in memory, never the body. A
 * reader that goes away stops the source. A failure after the status went out cannot change it:
 * the connection is dropped, so the reader sees a broken transfer rather than a short file.
 */
async function sendStream(response: ServerResponse, result: ApiResult, chunks: AsyncIterable<string>): Promise<void> {
  response.writeHead(result.statusCode ?? 200, headersOf(result));
  try {
    for await (const chunk of chunks) {
      if (response.destroyed) break;
      if (!response.write(chunk)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
    }
    response.end();
  } catch (error) {
    console.error(JSON.stringify({ level: 'ERROR', message: 'streamed answer failed', error: String(error) }));
    response.destroy();
  }
}

/**
 * The local stand-in for API Gateway: turns HTTP requests into HTTP API (payload 2.0) events,
 * runs the same authorizer code for authenticated routes, and invokes the same handlers.
 */
export function makeLocalRequestListener({
  routes,
  handlers,
  sessionKey,
  localEndpoints = {},
  serveUi,
  rawEndpoints,
}: LocalHttpServerOptions): RequestListener {
  const compiled = routes.map(compile);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { path, search } = splitTarget(request.url ?? '/');
    const method = request.method ?? 'GET';
    const requestId = randomUUID();
    if (serveUi && (await serveUi(request, response, path))) return;
    if (rawEndpoints && (await rawEndpoints(request, response, { path, query: new URLSearchParams(search) }))) return;
    const { bytes, truncated } = await readBody(request);
    // Node closes the socket once a `connection: close` answer is written, so the rest is not read.
    if (truncated) response.setHeader('connection', 'close');
    const notFound = () => {
      const { status, body: errorBody } = errorResponse(new NotFoundError(`no route ${method} ${path}`), requestId);
      send(response, { statusCode: status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(errorBody) });
    };

    const local = Object.hasOwn(localEndpoints, path) ? localEndpoints[path] : undefined;
    if (local && method === 'POST') {
      const result = await local(request, bytes, requestId);
      if ('lines' in result) {
        response.writeHead(result.status, { 'content-type': 'application/x-ndjson' });
        for await (const line of result.lines) response.write(`${JSON.stringify(line)}\n`);
        response.end();
        return;
      }
      send(response, { statusCode: result.status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result.body) });
      return;
    }

    // Like API Gateway, a literal path beats a parameter: /api/scans/schedules/ is not scan "schedules".
    let matched: { compiledRoute: CompiledRoute; values: string[] } | undefined;
    for (const compiledRoute of compiled) {
      const match = compiledRoute.pattern.exec(path);
      if (!match || compiledRoute.route.method !== method) continue;
      if (!matched || compiledRoute.params.length < matched.compiledRoute.params.length)
        matched = { compiledRoute, values: match.slice(1) };
    }
    if (!matched) return notFound();
    const { route, params } = matched.compiledRoute;
    const values = matched.values.map(decodeSegment);
    if (values.some((value) => value === null)) return notFound();
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]),
    );
    const cookies = headers.cookie
      ?.split(';')
      .map((part) => part.trim())
      .filter(Boolean);
    // Repeated parameters are joined with commas, as API Gateway does.
    const query: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [name, value] of new URLSearchParams(search)) query[name] = Object.hasOwn(query, name) ? `${query[name]},${value}` : value;
    const { body, isBase64Encoded } = eventBody(bytes);

    const event = {
      version: '2.0',
      routeKey: `${method} ${route.path}`,
      rawPath: path,
      rawQueryString: search.slice(1),
      cookies,
      headers: Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'cookie')),
      queryStringParameters: search.length > 1 ? { ...query } : undefined,
      pathParameters: params.length ? Object.fromEntries(params.map((name, i) => [name, values[i]])) : undefined,
      requestContext: {
        requestId,
        routeKey: `${method} ${route.path}`,
        http: { method, path, protocol: 'HTTP/1.1', sourceIp: request.socket.remoteAddress ?? '', userAgent: headers['user-agent'] ?? '' },
        authorizer: route.authenticated
          ? { lambda: await authorize({ ...headers, cookie: headers.cookie }, undefined, sessionKey, { bearerOnly: route.bearerOnly }) }
          : undefined,
      },
      body,
      isBase64Encoded,
    } as unknown as ApiEvent;
    const { stream, ...result } = await handlers[route.handler](event, lambdaContext(requestId));
    if (stream) await sendStream(response, result, stream);
    else send(response, result);
  }

  return (request, response) => {
    handle(request, response).catch((error: unknown) => {
      const { status, body } = errorResponse(error, 'local');
      console.error(JSON.stringify({ level: 'ERROR', message: 'local server failed', error: String(error) }));
      if (!response.headersSent)
        send(response, { statusCode: status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      else response.end();
    });
  };
}
