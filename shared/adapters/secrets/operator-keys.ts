import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { makeSecretsManagerClient } from './secrets-manager-client.ts';
import type { Logger } from '../../ports/logger.ts';

/** Operator keys by variable name (`MAILSCAN_SPAMHAUS_DQS_KEY` → value), for the scanner's environment only. */
export type OperatorKeys = Readonly<Record<string, string>>;

/**
 * Names the secret may set: the scanner's operator keys (`MAILSCAN_<SERVICE>_KEY`, DESIGN §10). Not
 * any `MAILSCAN_*`: a secret must not be able to switch scanner behaviour such as
 * MAILSCAN_ALLOW_PRIVATE (the SSRF guard) or MAILSCAN_NAMESERVERS; those are deployment settings.
 */
export const OPERATOR_KEY_NAME = /^MAILSCAN_[A-Z0-9]+(?:_[A-Z0-9]+)*_KEY$/;

export type ParsedOperatorKeys = { ok: true; keys: OperatorKeys; ignored: string[] } | { ok: false; problem: string };

/**
 * Reads the secret's JSON object of operator keys. A problem is described without any of the
 * secret's content (not even JSON.parse's message, which quotes the text), so it can be logged.
 */
export function parseOperatorKeys(secretString: string): ParsedOperatorKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString);
  } catch {
    return { ok: false, problem: 'the secret is not JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, problem: 'the secret is not a JSON object' };
  const keys: Record<string, string> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (!OPERATOR_KEY_NAME.test(name)) {
      // Names are not secret, but a name that is not a key name could be a value pasted as a name.
      ignored.push(name.length <= 64 && /^[A-Za-z0-9_]+$/.test(name) ? name : '(a name that is not a variable name)');
      continue;
    }
    if (typeof value !== 'string') return { ok: false, problem: `${name} is not a string` };
    if (value !== '') keys[name] = value;
  }
  return { ok: true, keys, ignored };
}

/**
 * Reads the operator keys secret once per cold start (concurrent first scans share the read). A
 * missing or malformed secret is logged without its content and yields no keys: the scanner then
 * skips the services that need one. A read that fails for another reason (throttling, network) is
 * not kept, so the next scan tries again; that scan runs without keys.
 */
export function makeOperatorKeysLoader({
  secretId,
  logger,
  client = makeSecretsManagerClient(),
}: {
  secretId: string;
  logger: Logger;
  client?: SecretsManagerClient;
}): () => Promise<OperatorKeys> {
  let loaded: Promise<OperatorKeys> | undefined;

  async function read(): Promise<{ keys: OperatorKeys; keep: boolean }> {
    let secretString: string | undefined;
    try {
      ({ SecretString: secretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId })));
    } catch (error) {
      if (error instanceof ResourceNotFoundException) {
        logger.error('operator keys secret not found; key-gated services are skipped', { secret: secretId });
        return { keys: {}, keep: true };
      }
      logger.error('operator keys secret could not be read; this scan runs without keys', {
        secret: secretId,
        error_name: error instanceof Error ? error.name : 'unknown',
      });
      return { keys: {}, keep: false };
    }
    const parsed = parseOperatorKeys(secretString ?? '');
    if (!parsed.ok) {
      logger.error('operator keys secret is malformed; key-gated services are skipped', { secret: secretId, problem: parsed.problem });
      return { keys: {}, keep: true };
    }
    if (parsed.ignored.length > 0)
      logger.warn('operator keys secret has names that are not operator keys; ignored', { names: parsed.ignored });
    logger.info('operator keys loaded', { names: Object.keys(parsed.keys).sort() });
    return { keys: parsed.keys, keep: true };
  }

  return () => {
    loaded ??= read().then(({ keys, keep }) => {
      if (!keep) loaded = undefined;
      return keys;
    });
    return loaded;
  };
}
