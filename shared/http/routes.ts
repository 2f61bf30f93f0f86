/**
 * A route of the HTTP API, declared once: method, path, role, request schemas, response, error
 * statuses, summary and handler. Each API function declares its routes beside its handler
 * (functions/api/*-handler.ts) and the table of all of them is functions/api/routes.ts, from which
 * the CDK stack (API Gateway routes), the local server, the middy chain's request checks and the
 * OpenAPI document are all derived (docs/routes.md).
 */
import type * as z from 'zod';
import type { Role } from '../domain/identity.ts';
import type { ApiRequest, ApiResponse } from './api-types.ts';
import type { ErrorStatus } from './error-body.ts';

/** The Lambda function that serves a route (one per entry under functions/api/). */
export type HandlerName = 'schedules' | 'scans' | 'meta';

/** A list query (shared/domain, built at first use): each field is a query parameter, described by its `.describe()`. */
export type QuerySchema = z.ZodLazy<z.ZodObject<Record<string, z.ZodType>>>;

/** What a route is, without the code that serves it: all the stack, the local server and OpenAPI read. */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway path with `{param}` placeholders and the trailing slash of DESIGN §3. */
  path: string;
  handler: HandlerName;
  /** false only for the health check, the OpenAPI document and signing out. */
  authenticated: boolean;
  /** The least role that may call it (DESIGN §3); ignored when not authenticated. */
  role: Role;
  /** Only the Bearer token authenticates it and any cookie is ignored (signing in replaces the cookie). */
  bearerOnly?: boolean;
  summary: string;
  /**
   * The `{id}` of the path, checked against its id schema (shared/domain/ids.ts) before anything
   * else: a malformed id cannot exist in any tenant, so it answers 404 `<noun> <id> not found`.
   */
  id?: { schema: z.ZodString; noun: string };
  query?: QuerySchema;
  /** The JSON body, parsed strictly; `readOnly` fields are refused as read-only rather than unknown. */
  body?: z.ZodType;
  readOnly?: readonly string[];
  success: { status: number; schema?: z.ZodType; description: string };
  /** A redirect the route may answer instead, its Location a URL to GET (the CSV export's 303). */
  redirect?: { status: 303; description: string };
  /** The error statuses the route can answer (DESIGN §3), as the OpenAPI document lists them. */
  errors: ErrorStatus[];
}

/** The request a route's handler gets: the `{id}`, query and body already checked against the declaration. */
export interface RouteRequest<Q, B> extends Omit<ApiRequest, 'query' | 'body'> {
  id: string;
  query: Q;
  body: B;
}

/** A route with the code that serves it, given the function's dependencies `D`. */
export interface Route<D> extends RouteDefinition {
  // The request is typed at the declaration (declareRoutes); in a list of routes it is any request.
  handle: (request: RouteRequest<any, any>, deps: D) => Promise<ApiResponse>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

type Inferred<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** One declaration, its handler typed by its own schemas. */
export type RouteDeclaration<D, Q extends QuerySchema | undefined, B extends z.ZodType | undefined> = Omit<
  RouteDefinition,
  'handler' | 'query' | 'body' | 'authenticated'
> & {
  /** Defaults to true. */
  authenticated?: boolean;
  query?: Q;
  body?: B;
  handle: (request: RouteRequest<Inferred<Q>, Inferred<B>>, deps: D) => Promise<ApiResponse>;
};

/** The `route` that {@link declareRoutes} hands its callback, for route lists declared in their own module. */
export type RouteFactory<D> = <Q extends QuerySchema | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  declaration: RouteDeclaration<D, Q, B>,
) => Route<D>;

/**
 * The routes one function serves, each declared once. `route` types each handler's request by the
 * declaration's own query and body schemas.
 */
export function declareRoutes<D>(handler: HandlerName, declare: (route: RouteFactory<D>) => Route<D>[]): Route<D>[] {
  return declare((declaration) => ({ ...declaration, authenticated: declaration.authenticated ?? true, handler }));
}

/** The same path without its trailing slash is accepted too (DESIGN §3). */
export function pathVariants(path: string): string[] {
  return path.endsWith('/') ? [path, path.slice(0, -1)] : [path];
}

/** The route key without its trailing slash: `PATCH /api/scans/schedules/{id}`. */
export function routeKeyOf(method: string, path: string): string {
  return `${method} ${path.replace(/\/$/, '')}`;
}
