import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../../shared/http/api-types.ts';

/** The authorizer context an API function receives (functions/authorizer-handler.ts answers it). */
export type AuthorizerLambdaContext = Record<string, string | number | boolean>;

/**
 * An HTTP API (payload 2.0) event as API Gateway hands it to an API function after the Lambda
 * authorizer: method, path (with its query string), JSON body, and the authorizer's context under
 * requestContext.authorizer.
 */
export function apiGatewayEvent(
  method: string,
  path: string,
  { body, authorizer, headers = {} }: { body?: unknown; authorizer: AuthorizerLambdaContext; headers?: Record<string, string> },
): ApiEvent {
  const [rawPath, rawQueryString = ''] = path.split('?');
  const query = Object.fromEntries(new URLSearchParams(rawQueryString));
  const routeKey = `${method} ${rawPath}`;
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(rawQueryString === '' ? {} : { queryStringParameters: query }),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    requestContext: {
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey,
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
      authorizer: { lambda: authorizer },
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    isBase64Encoded: false,
  } as unknown as ApiEvent;
}

/** The Lambda context an API function reads (its remaining time for nothing else). */
export function lambdaContext(functionName: string, timeoutMs = 10_000): Context {
  const started = Date.now();
  return {
    functionName,
    awsRequestId: `inv-${Math.random().toString(36).slice(2)}`,
    getRemainingTimeInMillis: () => timeoutMs - (Date.now() - started),
  } as unknown as Context;
}
