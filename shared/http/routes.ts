/**
 * The HTTP API's routes: one list used by the CDK stack (API Gateway routes) and the local server,
 * so both expose exactly the same surface. `handler` names the Lambda entry under functions/.
 */
import type { Role } from '../domain/identity.ts';

export type HandlerName = 'schedules' | 'scans' | 'meta';

export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway path with `{param}` placeholders and the trailing slash of DESIGN §3. */
  path: string;
  handler: HandlerName;
  /** false only for the health check, the OpenAPI document and signing out. */
  authenticated: boolean;
  /** The least role that may call it (DESIGN §3); ignored when not authenticated. */
  role: Role;
  /** Only the Bearer token authenticates it and any cookie is ignored (signing in replaces the cookie). */
  bearerOnly?: boolean;
}

export const routes: RouteDefinition[] = [
  { method: 'GET', path: '/api/scans/schedules/', handler: 'schedules', authenticated: true, role: 'viewer' },
  { method: 'POST', path: '/api/scans/schedules/', handler: 'schedules', authenticated: true, role: 'operator' },
  { method: 'GET', path: '/api/scans/schedules/{id}/', handler: 'schedules', authenticated: true, role: 'viewer' },
  { method: 'PATCH', path: '/api/scans/schedules/{id}/', handler: 'schedules', authenticated: true, role: 'operator' },
  { method: 'DELETE', path: '/api/scans/schedules/{id}/', handler: 'schedules', authenticated: true, role: 'admin' },
  { method: 'POST', path: '/api/scans/schedules/{id}/toggle/', handler: 'schedules', authenticated: true, role: 'operator' },
  { method: 'POST', path: '/api/scans/schedules/{id}/run/', handler: 'scans', authenticated: true, role: 'operator' },
  { method: 'POST', path: '/api/scans/', handler: 'scans', authenticated: true, role: 'operator' },
  { method: 'GET', path: '/api/scans/', handler: 'scans', authenticated: true, role: 'viewer' },
  { method: 'GET', path: '/api/scans/{id}/', handler: 'scans', authenticated: true, role: 'viewer' },
  { method: 'GET', path: '/api/findings/', handler: 'scans', authenticated: true, role: 'viewer' },
  { method: 'POST', path: '/api/artifacts/', handler: 'scans', authenticated: true, role: 'operator' },
  { method: 'GET', path: '/api/artifacts/{id}/', handler: 'scans', authenticated: true, role: 'viewer' },
  { method: 'GET', path: '/api/scan-types/', handler: 'meta', authenticated: true, role: 'viewer' },
  { method: 'POST', path: '/api/session', handler: 'meta', authenticated: true, role: 'viewer', bearerOnly: true },
  // Signing out clears the cookie even when the session has expired, so it asks for none.
  { method: 'DELETE', path: '/api/session', handler: 'meta', authenticated: false, role: 'viewer' },
  { method: 'GET', path: '/api/me', handler: 'meta', authenticated: true, role: 'viewer' },
  { method: 'GET', path: '/api/health', handler: 'meta', authenticated: false, role: 'viewer' },
  { method: 'GET', path: '/api/openapi.json', handler: 'meta', authenticated: false, role: 'viewer' },
];

/** The same path without its trailing slash is accepted too (DESIGN §3). */
export function pathVariants(path: string): string[] {
  return path.endsWith('/') ? [path, path.slice(0, -1)] : [path];
}

/** The route key without its trailing slash: `PATCH /api/scans/schedules/{id}`. */
export function routeKeyOf(method: string, path: string): string {
  return `${method} ${path.replace(/\/$/, '')}`;
}

export function routesOf(handler: HandlerName): RouteDefinition[] {
  return routes.filter((route) => route.handler === handler);
}

/** True for a route key (`POST /api/session`, as API Gateway's authorizer event names it) that only a Bearer token authenticates. */
export function isBearerOnlyRoute(routeKey: string): boolean {
  const [method = '', path = ''] = routeKey.split(' ');
  return routes.some((route) => route.bearerOnly === true && routeKeyOf(route.method, route.path) === routeKeyOf(method, path));
}
