import { KMSClient } from '@aws-sdk/client-kms';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/**
 * The KMS client for a composition root, made once at module scope. `endpoint` is for tests
 * (moto_server); in Lambda the region and credentials come from the function's environment.
 */
export function makeKmsClient(options: { region?: string; endpoint?: string } = {}): KMSClient {
  return new KMSClient({
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    maxAttempts: 3,
    // Each attempt bounded like every AWS client of the service (docs/aws-timeouts.md).
    requestHandler: boundedRequestHandler(API_ATTEMPT),
  });
}
