import { makeSessionKeyLoader } from '../shared/adapters/secrets/session-key.ts';
import { ENV } from '../shared/config/environment.ts';
import { makeAuthorizerHandler } from './authorizer-handler.ts';

const secretArn = process.env[ENV.sessionKeySecretArn];
if (!secretArn) throw new Error(`invalid configuration: ${ENV.sessionKeySecretArn}`);

export const handler = makeAuthorizerHandler(makeSessionKeyLoader(secretArn));
