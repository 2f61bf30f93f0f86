/**
 * Operator-held tokens for private repositories (DESIGN §11, §13): `scope.credential` names one,
 * and the token is read from SECRETSCAN_TOKEN_<NAME> (the runner passes it from the operator
 * secret in AWS, from the environment locally). The username defaults to `x-access-token`
 * (GitHub; GitLab and Gitea accept any user with a token); SECRETSCAN_TOKEN_<NAME>_USER sets
 * another (Bitbucket app passwords need the account's).
 */
export interface RepositoryCredential {
  /** The Authorization header value; never logged, never reported. */
  authorization: string;
  /** Strings that must never appear in a report or a log line. */
  secrets: string[];
}

export class CredentialMissing extends Error {
  override readonly name = 'CredentialMissing';
  constructor(name: string) {
    super(`credential ${name} is not configured (the operator sets SECRETSCAN_TOKEN_${name.toUpperCase()})`);
  }
}

export function credentialEnvName(name: string): string {
  return `SECRETSCAN_TOKEN_${name.toUpperCase()}`;
}

export function readCredential(name: string, env: Readonly<Record<string, string | undefined>>): RepositoryCredential {
  const token = env[credentialEnvName(name)]?.trim();
  if (!token) throw new CredentialMissing(name);
  const user = env[`${credentialEnvName(name)}_USER`]?.trim() || 'x-access-token';
  const basic = Buffer.from(`${user}:${token}`, 'utf8').toString('base64');
  return { authorization: `Basic ${basic}`, secrets: [token, basic] };
}

/** `text` with every credential string replaced: the last line of defence for error messages. */
export function redact(text: string, secrets: readonly string[]): string {
  return secrets.filter((secret) => secret.length > 0).reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}
