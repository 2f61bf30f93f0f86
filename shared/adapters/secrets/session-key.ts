import { GetSecretValueCommand, ResourceNotFoundException } from '@aws-sdk/client-secrets-manager';
import { makeSecretsManagerClient } from './secrets-manager-client.ts';

/** Least time between two re-reads forced by tokens that name an unknown key. */
export const SESSION_KEYS_MIN_REFRESH_MS = 60_000;

export interface SessionKeysLoader {
  /** The keys read at cold start: the current one first, then the previous one if the secret has one. */
  keys(): Promise<string[]>;
  /**
   * Re-read the keys (after a rotation, a token names the new key). At most once per
   * SESSION_KEYS_MIN_REFRESH_MS: tokens with made-up key ids cannot make it hammer Secrets Manager.
   */
  refresh(): Promise<string[]>;
}

/**
 * Reads the HS256 session keys from Secrets Manager: the AWSCURRENT version and, when the secret
 * has been rotated, the AWSPREVIOUS one, so tokens minted just before a rotation stay valid until
 * they expire. Read once per cold start; concurrent first invocations share one read.
 */
export function makeSessionKeysLoader(
  secretArn: string,
  client = makeSecretsManagerClient(),
  now: () => number = Date.now,
): SessionKeysLoader {
  async function read(): Promise<string[]> {
    const [current, previous] = await Promise.all([
      client.send(new GetSecretValueCommand({ SecretId: secretArn })),
      client.send(new GetSecretValueCommand({ SecretId: secretArn, VersionStage: 'AWSPREVIOUS' })).catch((error: unknown) => {
        // A secret that was never rotated has no previous version.
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }),
    ]);
    if (!current.SecretString) throw new Error('the session key secret has no string value');
    return previous?.SecretString ? [current.SecretString, previous.SecretString] : [current.SecretString];
  }

  let pending: Promise<string[]> | undefined;
  let readAt = 0;
  function start(): Promise<string[]> {
    readAt = now();
    const reading = read();
    pending = reading;
    // A failed read is not cached: the next invocation tries again.
    reading.catch(() => {
      if (pending === reading) pending = undefined;
    });
    return reading;
  }
  return {
    keys: () => pending ?? start(),
    refresh: () => (pending && now() - readAt < SESSION_KEYS_MIN_REFRESH_MS ? pending : start()),
  };
}
