import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Logger } from '../ports/logger.ts';
import type { ApiEvent, ApiResponse, ApiResult, StreamedApiResult } from './api-types.ts';
import { checkRequest } from './check-request.ts';
import { errorHandler, jsonBody, originCheck, requestIdOf, requireRole, resolveRoute, stateOf } from './middlewares.ts';
import { bufferBody, bufferUpTo, primed } from './response-stream.ts';
import type { Route } from './routes.ts';

export interface ApiHandlerOptions<D> {
  /** The function's routes, each with its handler (declareRoutes). */
  routes: Route<D>[];
  /** What the handlers are given besides the request: the function's services. */
  deps: D;
  logger: Logger;
  allowedOrigins: string[];
  /**
   * The server sends a body as it is made (the local server): a `stream` answer is passed on as
   * one. Otherwise (API Gateway and Lambda, buffered) it is collected into one body first, up to
   * MAX_BUFFERED_BODY_BYTES; past that the route's `overflow` answers, or 413.
   */
  streaming?: boolean;
}

function toResult({ status, body, raw, headers, cookies }: ApiResponse): ApiResult {
  const withCookies = cookies?.length ? { cookies } : {};
  if (raw !== undefined) return { statusCode: status, headers, body: raw, ...withCookies };
  if (body === undefined) return { statusCode: status, headers, ...withCookies };
  return { statusCode: status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), ...withCookies };
}

/**
 * The middy chain every API function shares: error mapping, route, authentication and role,
 * CSRF origin check, JSON body, the declared `{id}`, query and body; then exactly one handler.
 */
export function makeApiHandler<D>({ routes, deps, logger, allowedOrigins, streaming = false }: ApiHandlerOptions<D>) {
  const chain = middy<ApiEvent, ApiResult, Error, Context>({ timeoutEarlyInMillis: 0 });
  // Powertools keys each invocation's lines (Lambda context, then request_id and tenant below) and
  // clears them when it ends; where invocations overlap in one process (the local server runs
  // each request in its own invocation scope) each keeps its own keys.
  if (logger instanceof PowertoolsLogger) chain.use(injectLambdaContext(logger, { resetKeys: true }));
  return chain
    .use(errorHandler(logger))
    .use(resolveRoute(routes))
    .use(requireRole())
    .use(originCheck(allowedOrigins))
    .use(jsonBody())
    .use(checkRequest())
    .handler(async function runOperation(event): Promise<StreamedApiResult> {
      const { route, checked } = stateOf(event);
      if (!checked) throw new Error('checkRequest did not run');
      const context = event.requestContext.authorizer?.lambda;
      const identity = context && 'tenant' in context ? { sub: context.sub, tenant: context.tenant, role: context.role } : undefined;
      const requestId = requestIdOf(event);
      if (logger instanceof PowertoolsLogger) logger.appendKeys({ request_id: requestId, tenant: identity?.tenant });
      const response: ApiResponse = await (route as Route<D>).handle(
        {
          // Public routes never read it; authenticated ones passed requireRole.
          identity: identity ?? { sub: '', tenant: '', role: 'viewer' },
          session: context && 'tenant' in context ? { via: context.via, expires_at: context.expires_at } : undefined,
          headers: Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
          params: (event.pathParameters ?? {}) as Record<string, string>,
          ...checked,
          requestId,
          cursorKeys: context && 'cursor_keys' in context ? context.cursor_keys.split(',') : [],
        },
        deps,
      );
      const { stream, ...answer } = response;
      if (stream === undefined) return toResult(answer);
      if (streaming) return { ...toResult(answer), stream: await primed(stream.chunks) };
      if (stream.overflow === undefined) return toResult({ ...answer, raw: await bufferBody(stream.chunks, stream.tooLarge) });
      const buffered = await bufferUpTo(stream.chunks);
      return 'body' in buffered ? toResult({ ...answer, raw: buffered.body }) : toResult(await stream.overflow(buffered.overflow));
    });
}
