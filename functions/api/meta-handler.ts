import { listScanTypes } from '../../shared/domain/scan-type-list.ts';
import { makeApiHandler, type Operation } from '../../shared/http/make-api-handler.ts';
import { routeKeyOf, routesOf } from '../../shared/http/routes.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import { makeSessionOperations } from './session-operations.ts';

export interface MetaHandlerDeps {
  version: string;
  /** Scan types this deployment has a runner for. */
  runners: ReadonlySet<string>;
  logger: Logger;
  allowedOrigins: string[];
  /** `Secure` on the session cookie: true in AWS, false on the local http:// server. */
  secureCookie: boolean;
  acceptSignIn?: (token: string) => void;
}

/** Health, scan types, the OpenAPI document and the UI's session endpoints. */
export function makeMetaHandler({ version, runners, logger, allowedOrigins, secureCookie, acceptSignIn }: MetaHandlerDeps) {
  // Built at the first request for it, from a module loaded then: the document imports every
  // route's schemas and converts them to JSON Schema, which was most of this function's cold start
  // although health, scan types and the session routes need none of it.
  let openApi: Promise<Record<string, unknown>> | undefined;
  const openApiDocument = () =>
    (openApi ??= import('../../shared/http/openapi.ts')
      .then(({ buildOpenApiDocument }) => buildOpenApiDocument(version))
      .catch((error: unknown) => {
        openApi = undefined; // the next request tries again
        throw error;
      }));
  const operations: Record<string, Operation> = {
    [routeKeyOf('GET', '/api/scan-types/')]: async () => ({ status: 200, body: listScanTypes(runners) }),
    [routeKeyOf('GET', '/api/health')]: async () => ({ status: 200, body: { status: 'ok', version } }),
    [routeKeyOf('GET', '/api/openapi.json')]: async () => ({ status: 200, body: await openApiDocument() }),
    ...makeSessionOperations({ secureCookie, acceptSignIn }),
  };
  return makeApiHandler({ routes: routesOf('meta'), operations, logger, allowedOrigins });
}
