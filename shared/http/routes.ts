/**
 * The HTTP API's routes: one list used by the CDK stack (API Gateway routes) and the local server,
 * so both expose exactly the same surface. `handler` names the Lambda entry under functions/.
 */
export type HandlerName = 'schedules' | 'meta';

export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway path with `{param}` placeholders and the trailing slash of DESIGN §3. */
  path: string;
  handler: HandlerName;
  /** false only for the health check and the OpenAPI document. */
  authenticated: boolean;
}

export const routes: RouteDefinition[] = [
  { method: 'GET', path: '/api/scans/schedules/', handler: 'schedules', authenticated: true },
  { method: 'POST', path: '/api/scans/schedules/', handler: 'schedules', authenticated: true },
  { method: 'GET', path: '/api/scans/schedules/{id}/', handler: 'schedules', authenticated: true },
  { method: 'PATCH', path: '/api/scans/schedules/{id}/', handler: 'schedules', authenticated: true },
  { method: 'DELETE', path: '/api/scans/schedules/{id}/', handler: 'schedules', authenticated: true },
  { method: 'POST', path: '/api/scans/schedules/{id}/toggle/', handler: 'schedules', authenticated: true },
  { method: 'GET', path: '/api/scan-types/', handler: 'meta', authenticated: true },
  { method: 'GET', path: '/api/health', handler: 'meta', authenticated: false },
  { method: 'GET', path: '/api/openapi.json', handler: 'meta', authenticated: false },
];

/** The same path without its trailing slash is accepted too (DESIGN §3). */
export function pathVariants(path: string): string[] {
  return path.endsWith('/') ? [path, path.slice(0, -1)] : [path];
}
