import { makeSessionKeysLoader } from '../shared/adapters/secrets/session-key.ts';
import { AuthorizerConfig, readConfig } from '../shared/config/function-config.ts';
import { makeAuthorizerHandler } from './authorizer-handler.ts';

const config = readConfig(AuthorizerConfig);

export const handler = makeAuthorizerHandler(makeSessionKeysLoader(config.SESSION_KEY_SECRET_ARN), config.BEARER_ONLY_ROUTES);
