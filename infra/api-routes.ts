import { pathVariants, type HandlerName, type RouteDefinition } from '../shared/http/routes.ts';

/** One API Gateway route (route key) and the request paths of functions/api/routes.ts it serves. */
export interface ApiGatewayRoute {
  method: RouteDefinition['method'];
  /** The route key path, never ending in `/`. */
  path: string;
  handler: HandlerName;
  authenticated: boolean;
  /** Every path variant (with and without trailing slash) that API Gateway sends to this route. */
  servesPaths: string[];
}

/**
 * API Gateway's form of a request path: HTTP API rejects route keys that end in `/` (and so does
 * CDK's HttpRouteKey) and matches `/a/b/` to the route `/a/b`, so both variants share one route.
 */
export function apiGatewayPath(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * The HTTP API routes that serve every route of functions/api/routes.ts, with and without its
 * trailing slash. Variants that fold into the same route key must agree on handler and
 * authentication, or this throws rather than exposing a path with the wrong authorizer.
 */
export function apiGatewayRoutes(definitions: readonly RouteDefinition[]): ApiGatewayRoute[] {
  const byKey = new Map<string, ApiGatewayRoute>();
  for (const definition of definitions) {
    for (const variant of pathVariants(definition.path)) {
      const path = apiGatewayPath(variant);
      const key = `${definition.method} ${path}`;
      const existing = byKey.get(key);
      if (existing === undefined) {
        byKey.set(key, {
          method: definition.method,
          path,
          handler: definition.handler,
          authenticated: definition.authenticated,
          servesPaths: [variant],
        });
      } else if (existing.handler !== definition.handler || existing.authenticated !== definition.authenticated) {
        throw new Error(`Routes for ${key} disagree on handler or authentication.`);
      } else if (!existing.servesPaths.includes(variant)) {
        existing.servesPaths.push(variant);
      }
    }
  }
  return [...byKey.values()];
}
