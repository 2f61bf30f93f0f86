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
  /**
   * The OpenAPI document, asked for at the first `GET /api/openapi.json` and kept. In AWS it is
   * read from the file written beside the bundle at build time (functions/api/meta.ts), so this
   * function bundles none of the route schemas or zod's JSON Schema converter; locally it is built.
   */
  openApiDocument: () => Promise<Record<string, unknown>>;
}

/** Health, scan types, the OpenAPI document and the UI's session endpoints. */
export function makeMetaHandler(deps: MetaHandlerDeps) {
  const { version, runners, logger, allowedOrigins, secureCookie, acceptSignIn } = deps;
  let openApi: Promise<Record<string, unknown>> | undefined;
  const openApiDocument = () =>
    (openApi ??= deps.openApiDocument().catch((error: unknown) => {
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
