import { ApiConfig, readConfig } from '../../shared/config/api-config.ts';
import { ENV } from '../../shared/config/environment.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { makeMetaHandler } from './meta-handler.ts';

const config = readConfig(ApiConfig.pick({ ALLOWED_ORIGINS: true, SERVICE_VERSION: true }));

// The stack lists the scan types its dispatch function has runners for (email_security with the mailscan layer).
const runners = new Set((process.env[ENV.scanRunners] ?? '').split(',').map((type) => type.trim()).filter(Boolean));

export const handler = makeMetaHandler({
  version: config.SERVICE_VERSION,
  runners,
  logger: makeLogger('meta'),
  allowedOrigins: config.ALLOWED_ORIGINS,
  // Served over HTTPS only (CloudFront, API Gateway): the session cookie is always Secure.
  secureCookie: true,
});
