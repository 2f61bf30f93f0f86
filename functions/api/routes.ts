import { routeKeyOf, type RouteDefinition } from '../../shared/http/routes.ts';
import { metaRoutes } from './meta-handler.ts';
import { scanRoutes } from './scans-handler.ts';
import { scheduleRoutes } from './schedules-handler.ts';

/**
 * Every route of the HTTP API, each declared once beside its handler. The CDK stack
 * (infra/constructs/api.ts), the local server (local/runtime.ts) and the OpenAPI document
 * (shared/http/openapi.ts) read this table; a Lambda function imports only its own routes, never
 * this module, so that its bundle holds no other function's handlers (docs/cold-start.md).
 */
export const routes: readonly RouteDefinition[] = [...scheduleRoutes, ...scanRoutes, ...metaRoutes];

/**
 * The API Gateway route keys (`POST /api/session`) that only a Bearer token authenticates: the
 * authorizer's BEARER_ONLY_ROUTES, set by the stack (the authorizer bundles no route table).
 */
export function bearerOnlyRouteKeys(table: readonly RouteDefinition[] = routes): string[] {
  return table.filter((route) => route.bearerOnly === true).map((route) => routeKeyOf(route.method, route.path));
}
