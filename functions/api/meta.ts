import { MetaConfig, readConfig } from '../../shared/config/function-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { makeMetaHandler } from './meta-handler.ts';
import type { EngineViews } from '../../shared/domain/scan-type-list.ts';
import { readShippedOpenApi } from './shipped-openapi.ts';

const config = readConfig(MetaConfig);

export const handler = makeMetaHandler({
  version: config.SERVICE_VERSION,
  runners: new Set(config.SCAN_RUNNERS),
  targetPolicy: { allowPrivate: config.ALLOW_PRIVATE_TARGETS },
  logger: makeLogger('meta'),
  allowedOrigins: config.ALLOWED_ORIGINS,
  // Served over HTTPS only (CloudFront, API Gateway): the session cookie is always Secure.
  secureCookie: true,
  // Written beside the bundle at build time (infra/bundling/write-openapi.ts, docs/cold-start.md).
  openApiDocument: () => readShippedOpenApi(new URL('./openapi.json', import.meta.url), config.SERVICE_VERSION),
  // Written beside the bundle at build time from the manifests (infra/bundling/write-engine-views.ts).
  engineViews: async () => {
    const { readFile } = process.getBuiltinModule('node:fs/promises');
    return JSON.parse(await readFile(new URL('./engine-views.json', import.meta.url), 'utf8')) as EngineViews;
  },
});
