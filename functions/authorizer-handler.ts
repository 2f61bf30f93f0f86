import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { authorize, type AuthorizerContext } from '../shared/auth/authorize.ts';
import type { SessionKeys } from '../shared/auth/session-token.ts';

/** Where the authorizer gets its session keys: read once, re-read when a token names a new key. */
export interface SessionKeySource {
  keys(): Promise<SessionKeys>;
  refresh(): Promise<SessionKeys>;
}

/**
 * HTTP API Lambda authorizer (simple responses). It always authorizes and passes either the
 * verified identity or `auth_error` in the context: the API functions then answer 401 with the
 * DESIGN §3 error body, which API Gateway's own rejection could not carry (docs/auth-in-aws.md).
 */
export function makeAuthorizerHandler(sessionKeys: SessionKeySource, bearerOnlyRoutes: readonly string[]) {
  // API Gateway route keys (`POST /api/session`): functions/api/routes.ts bearerOnlyRouteKeys.
  const bearerOnly = new Set(bearerOnlyRoutes);
  return async function authorizeRequest(
    event: APIGatewayRequestAuthorizerEventV2,
  ): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> {
    const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
    const context = await authorize(headers, event.cookies, await sessionKeys.keys(), {
      refreshKeys: () => sessionKeys.refresh(),
      bearerOnly: bearerOnly.has(event.routeKey ?? ''),
    });
    return { isAuthorized: true, context };
  };
}
