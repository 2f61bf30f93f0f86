import { listScanTypes } from '../../shared/domain/scan-type-list.ts';
import { makeApiHandler, type Operation } from '../../shared/http/make-api-handler.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
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
  const openApi = buildOpenApiDocument(version);
  const operations: Record<string, Operation> = {
    [routeKeyOf('GET', '/api/scan-types/')]: async () => ({ status: 200, body: listScanTypes(runners) }),
    [routeKeyOf('GET', '/api/health')]: async () => ({ status: 200, body: { status: 'ok', version } }),
    [routeKeyOf('GET', '/api/openapi.json')]: async () => ({ status: 200, body: openApi }),
    ...makeSessionOperations({ secureCookie, acceptSignIn }),
  };
  return makeApiHandler({ routes: routesOf('meta'), operations, logger, allowedOrigins });
}
