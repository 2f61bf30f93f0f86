import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { makeSecretsManagerClient } from './secrets-manager-client.ts';

/**
 * The legacy PostgreSQL URL from a Secrets Manager secret: either the URL itself, or a JSON object
 * with `url`, or the fields RDS-managed secrets carry (`username`, `password`, `host`, `port`,
 * `dbname`). Read once per cold start; a failed read is retried by the next invocation.
 */
export function makeLegacyDatabaseUrlLoader(secretId: string, client = makeSecretsManagerClient()): () => Promise<string> {
  let pending: Promise<string> | undefined;
  return () => {
    pending ??= client.send(new GetSecretValueCommand({ SecretId: secretId })).then((output) => databaseUrlOf(output.SecretString));
    pending.catch(() => {
      pending = undefined;
    });
    return pending;
  };
}

/** The URL a secret string holds (exported for tests). */
export function databaseUrlOf(secret: string | undefined): string {
  if (!secret) throw new Error('the legacy database secret has no string value');
  const text = secret.trim();
  if (!text.startsWith('{')) return text;
  const fields = JSON.parse(text) as Record<string, unknown>;
  if (typeof fields.url === 'string') return fields.url;
  const { username, password, host, port, dbname } = fields;
  if (typeof username !== 'string' || typeof password !== 'string' || typeof host !== 'string') {
    throw new Error('the legacy database secret needs `url`, or `username`, `password` and `host`');
  }
  const url = new URL(`postgres://${host}`);
  url.username = username;
  url.password = password;
  url.port = typeof port === 'number' || typeof port === 'string' ? String(port) : '5432';
  url.pathname = `/${typeof dbname === 'string' ? dbname : 'postgres'}`;
  return url.toString();
}
