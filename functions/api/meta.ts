import { ApiConfig, readConfig } from '../../shared/config/api-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { makeMetaHandler } from './meta-handler.ts';

const config = readConfig(ApiConfig.pick({ ALLOWED_ORIGINS: true, SERVICE_VERSION: true }));

// No scan runners are deployed yet: every scan type reports runner_available false.
export const handler = makeMetaHandler({
  version: config.SERVICE_VERSION,
  runners: new Set<string>(),
  logger: makeLogger('meta'),
  allowedOrigins: config.ALLOWED_ORIGINS,
});
