import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { authorize, type AuthorizerContext } from '../shared/auth/authorize.ts';

/**
 * HTTP API Lambda authorizer (simple responses). It always authorizes and passes either the
 * verified identity or `auth_error` in the context: the API functions then answer 401 with the
 * DESIGN §3 error body, which API Gateway's own rejection could not carry (docs/auth-in-aws.md).
 */
export function makeAuthorizerHandler(loadSessionKey: () => Promise<string>) {
  return async function authorizeRequest(
    event: APIGatewayRequestAuthorizerEventV2,
  ): Promise<APIGatewaySimpleAuthorizerWithContextResult<AuthorizerContext>> {
    const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
    const context = await authorize(headers, event.cookies, await loadSessionKey());
    return { isAuthorized: true, context };
  };
}
