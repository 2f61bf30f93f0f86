import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  ForbiddenError,
  InvalidJsonError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../domain/errors.ts';
import { roleAllows } from '../domain/identity.ts';
import type { Logger } from '../ports/logger.ts';
import type { ApiEvent, ApiResult } from './api-types.ts';
import { errorResponse } from './error-body.ts';
import { routeKeyOf, type RouteDefinition } from './routes.ts';

export const MAX_BODY_BYTES = 64 * 1024;

type Middleware = MiddlewareObj<ApiEvent, ApiResult, Error, Context>;

/** What the middlewares learned about a request, for the handler (middy does not pass `internal` to it). */
export interface RequestState {
  route: RouteDefinition;
  body?: unknown;
  /** The `{id}`, query and body once checked against the route's declaration (checkRequest). */
  checked?: { id: string; query: unknown; body: unknown };
}
const states = new WeakMap<ApiEvent, RequestState>();

export function stateOf(event: ApiEvent): RequestState {
  const state = states.get(event);
  if (!state) throw new Error('resolveRoute did not run');
  return state;
}

export function requestIdOf(event: ApiEvent): string {
  return event.requestContext?.requestId ?? 'unknown';
}

/** The one error middleware: domain errors are exposed, anything else is logged and becomes a bare 500. */
export function errorHandler(logger: Logger): Middleware {
  return {
    name: 'errorHandler',
    onError: function mapErrorToResponse(request) {
      const requestId = requestIdOf(request.event);
      const { status, body, exposed } = errorResponse(request.error, requestId);
      if (!exposed) logger.error('request failed', { request_id: requestId, error: request.error });
      else if (status >= 500) logger.warn('request refused by a dependency', { request_id: requestId, code: body.error.code });
      request.response = { statusCode: status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    },
  };
}

/** API Gateway's route key for a request that matched no route (the meta function serves it). */
export const DEFAULT_ROUTE_KEY = '$default';

/**
 * Resolves the route of the event (the trailing slash is optional) and stores it for later phases.
 * The `$default` route is a request for no route of the API: 404, the same answer as the local server's.
 */
export function resolveRoute(routes: RouteDefinition[]): Middleware {
  const byKey = new Map(routes.map((route) => [routeKeyOf(route.method, route.path), route]));
  return {
    name: 'resolveRoute',
    before: function findRoute(request) {
      if (request.event.routeKey === DEFAULT_ROUTE_KEY) {
        const { http } = request.event.requestContext;
        // The path is the caller's: bounded, so a 10 KiB path cannot make a 10 KiB error body.
        throw new NotFoundError(`no route ${http?.method ?? ''} ${(request.event.rawPath ?? http?.path ?? '').slice(0, 200)}`);
      }
      const [method, path = ''] = request.event.routeKey.split(' ');
      const route = byKey.get(routeKeyOf(method ?? '', path));
      if (!route) throw new Error(`no route for ${request.event.routeKey}`);
      states.set(request.event, { route });
    },
  };
}

/** 401 without a verified identity, 403 when the role is below the route's. */
export function requireRole(): Middleware {
  return {
    name: 'requireRole',
    before: function checkRole(request) {
      const { route } = stateOf(request.event);
      if (!route.authenticated) return;
      const context = request.event.requestContext.authorizer?.lambda;
      if (!context || !('tenant' in context)) {
        throw new UnauthenticatedError(context && 'auth_error' in context ? context.auth_error : 'no session');
      }
      if (!roleAllows(context.role, route.role)) throw new ForbiddenError(`the ${context.role} role may not do this`);
    },
  };
}

/**
 * CSRF: a mutating request authenticated by the cookie must come from an allowed origin (Origin,
 * else Referer). Bearer tokens are exempt: a browser never attaches them on its own.
 */
export function originCheck(allowedOrigins: string[]): Middleware {
  const allowed = new Set(allowedOrigins);
  return {
    name: 'originCheck',
    before: function checkOrigin(request) {
      const { method } = request.event.requestContext.http;
      const context = request.event.requestContext.authorizer?.lambda;
      if (method === 'GET' || method === 'HEAD' || !context || !('via' in context) || context.via !== 'cookie') return;
      const headers = request.event.headers ?? {};
      let origin = headers.origin;
      if (!origin && headers.referer) {
        try {
          origin = new URL(headers.referer).origin;
        } catch {
          origin = undefined;
        }
      }
      if (!origin || !allowed.has(origin)) throw new ForbiddenError('cross-site request refused: the Origin is not allowed');
    },
  };
}

/** How deep a request body may nest: DynamoDB stores at most 32 levels, and nothing we accept needs more. */
export const MAX_JSON_DEPTH = 32;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The nesting depth of a JSON text, counted without recursion (a scalar is 0, `[]` is 1). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth -= 1;
  }
  return deepest;
}

/**
 * The media type and charset of a Content-Type header. JSON is UTF-8 (RFC 8259 §8.1): a charset
 * parameter naming anything else is refused rather than decoded as if it were UTF-8.
 */
function checkContentType(header: string | undefined): void {
  const [type = '', ...parameters] = (header ?? '').split(';');
  if (type.trim().toLowerCase() !== 'application/json') throw new UnsupportedMediaTypeError('send the body as application/json');
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8')
      throw new UnsupportedMediaTypeError('JSON bodies are UTF-8: send charset=utf-8 or no charset');
  }
}

/**
 * A request body as the API reads one: 415 for a body that is not application/json in UTF-8, 413
 * over 64 KiB, 400 invalid_json for bytes that are not UTF-8 JSON, 400 validation_error past
 * MAX_JSON_DEPTH. The API's middleware and the local admin endpoints both read bodies through it.
 */
export function readJsonBody(contentType: string | undefined, bytes: Buffer): unknown {
  checkContentType(contentType);
  if (bytes.length > MAX_BODY_BYTES) throw new PayloadTooLargeError(`the body is over ${MAX_BODY_BYTES} bytes`);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new InvalidJsonError('the body is not valid UTF-8');
  }
  let body: unknown;
  try {
    // V8's JSON.parse does not recurse, so any depth parses; what comes after must not see it.
    body = JSON.parse(text) as unknown;
  } catch {
    throw new InvalidJsonError('the body is not valid JSON');
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new ValidationError('the body nests too deeply', [{ field: '', message: `must nest at most ${MAX_JSON_DEPTH} levels deep` }]);
  }
  return body;
}

/** The parsed body of a request that carries one (readJsonBody), in the request state. */
export function jsonBody(): Middleware {
  return {
    name: 'jsonBody',
    before: function parseJsonBody(request) {
      const { event } = request;
      const raw = event.body;
      if (raw === undefined || raw === null || raw === '') return;
      const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
      stateOf(event).body = readJsonBody(event.headers?.['content-type'], bytes);
    },
  };
}
