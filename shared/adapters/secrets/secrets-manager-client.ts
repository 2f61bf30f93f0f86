import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/** The Secrets Manager client of the secret loaders and the rotation function: SDK retries on, each attempt bounded. */
export function makeSecretsManagerClient(): SecretsManagerClient {
  return new SecretsManagerClient({ requestHandler: boundedRequestHandler(API_ATTEMPT) });
}
