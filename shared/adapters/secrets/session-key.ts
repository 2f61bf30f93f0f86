import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Reads the HS256 session key from Secrets Manager once per cold start; the promise is cached so
 * concurrent first invocations share one call.
 */
export function makeSessionKeyLoader(secretArn: string, client = new SecretsManagerClient({})): () => Promise<string> {
  let pending: Promise<string> | undefined;
  return () => {
    pending ??= client.send(new GetSecretValueCommand({ SecretId: secretArn })).then((output) => {
      if (!output.SecretString) throw new Error('the session key secret has no string value');
      return output.SecretString;
    });
    pending.catch(() => {
      pending = undefined;
    });
    return pending;
  };
}
