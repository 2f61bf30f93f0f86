import * as z from 'zod';
import { listScanTypes, ScanTypeList, type EngineViews } from '../../shared/domain/scan-type-list.ts';
import { makeApiHandler } from '../../shared/http/make-api-handler.ts';
import { declareRoutes, type Route } from '../../shared/http/routes.ts';
import type { TargetPolicy } from '../../shared/domain/network-policy.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import { sessionRoutes, type SessionOperationsOptions } from './session-operations.ts';

export interface MetaHandlerDeps extends SessionOperationsOptions {
  version: string;
  /** Scan types this deployment has a runner for. */
  runners: ReadonlySet<string>;
  /** The addresses targets may reach here (private networks, loopback), as the create routes check them. */
  targetPolicy: TargetPolicy;
  logger: Logger;
  allowedOrigins: string[];
  /**
   * The OpenAPI document, asked for at the first `GET /api/openapi.json` and kept. In AWS it is
   * read from the file written beside the bundle at build time (functions/api/meta.ts), so this
   * function bundles none of the other functions' route schemas or zod's JSON Schema converter;
   * locally it is built.
   */
  openApiDocument: () => Promise<Record<string, unknown>>;
  /**
   * Each scan type's engine with its scope as JSON Schema (shared/domain/engine-views.ts), asked
   * for at the first `GET /api/scan-types/` and kept: in AWS a file written beside the bundle at
   * build time (infra/bundling/write-engine-views.ts), locally built from the manifests.
   */
  engineViews: () => Promise<EngineViews>;
}

const Health = z.lazy(() => z.object({ status: z.literal('ok'), version: z.string() }));

/** Health, scan types, the OpenAPI document and the UI's session endpoints. */
export const metaRoutes: Route<MetaHandlerDeps>[] = declareRoutes<MetaHandlerDeps>('meta', (route) => [
  route({
    method: 'GET',
    path: '/api/scan-types/',
    role: 'viewer',
    summary: 'Scan types, target hints, runner availability, engines (status, scope as JSON Schema) and the target policy',
    success: { status: 200, schema: ScanTypeList, description: 'the scan types' },
    errors: [401],
    handle: async (_request, { runners, targetPolicy, engineViews }) => ({
      status: 200,
      body: listScanTypes(runners, targetPolicy, await engineViews()),
    }),
  }),
  ...sessionRoutes,
  route({
    method: 'GET',
    path: '/api/health',
    authenticated: false,
    role: 'viewer',
    summary: 'Liveness and version',
    success: { status: 200, schema: Health, description: 'healthy' },
    errors: [],
    handle: async (_request, { version }) => ({ status: 200, body: { status: 'ok', version } }),
  }),
  route({
    method: 'GET',
    path: '/api/openapi.json',
    authenticated: false,
    role: 'viewer',
    summary: 'This document',
    success: { status: 200, description: 'OpenAPI 3.1' },
    errors: [],
    handle: async (_request, { openApiDocument }) => ({ status: 200, body: await openApiDocument() }),
  }),
]);

export function makeMetaHandler(deps: MetaHandlerDeps) {
  let openApi: Promise<Record<string, unknown>> | undefined;
  const openApiDocument = () =>
    (openApi ??= deps.openApiDocument().catch((error: unknown) => {
      openApi = undefined; // the next request tries again
      throw error;
    }));
  let views: Promise<EngineViews> | undefined;
  const engineViews = () =>
    (views ??= deps.engineViews().catch((error: unknown) => {
      views = undefined; // the next request tries again
      throw error;
    }));
  return makeApiHandler({
    routes: metaRoutes,
    deps: { ...deps, openApiDocument, engineViews },
    logger: deps.logger,
    allowedOrigins: deps.allowedOrigins,
  });
}
