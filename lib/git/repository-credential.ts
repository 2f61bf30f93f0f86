import { credentialAllowsHost, credentialSecrets, redactSecrets, type LoadedCredential } from '../credential.ts';

/**
 * The tenant's `git_token` credential for a private repository (DESIGN §13, §16): the dispatch
 * hands it to the engine in `--credential-file`, and the kit's frame loads it as
 * `context.credential`. It is sent as Basic auth (user `x-access-token` unless the credential
 * names one: GitHub's convention; GitLab and Gitea accept any user with a token, Bitbucket app
 * passwords need the account's) to the target's origin only, and only when the credential's
 * `allowed_hosts` admit the target's host.
 */
export interface RepositoryCredential {
  /** The Authorization header value; never logged, never reported. */
  authorization: string;
  /** Strings that must never appear in a report or a log line. */
  secrets: string[];
}

/** The scope names a credential the engine cannot use; the message names the alias only. */
export class CredentialRefused extends Error {
  override readonly name = 'CredentialRefused';
}

/**
 * The credential for a clone of a repository on `host`, or why it cannot be used: no file given
 * although the scope names one, a kind other than git_token, or a host outside allowed_hosts.
 */
export function repositoryCredential(alias: string, credential: LoadedCredential | undefined, host: string): RepositoryCredential {
  if (credential === undefined) throw new CredentialRefused(`the scope names credential ${alias}, but no credential file was given`);
  if (credential.alias !== alias) throw new CredentialRefused(`the credential file holds ${credential.alias}, not ${alias}`);
  if (credential.kind !== 'git_token') throw new CredentialRefused(`credential ${alias} is a ${credential.kind}, not a git_token`);
  if (!credentialAllowsHost(credential, host)) {
    throw new CredentialRefused(`credential ${alias} may not be sent to ${host}: not in its allowed_hosts`);
  }
  const user = credential.secret.username ?? 'x-access-token';
  const basic = Buffer.from(`${user}:${credential.secret.token}`, 'utf8').toString('base64');
  return { authorization: `Basic ${basic}`, secrets: [...credentialSecrets(credential), basic] };
}

/** `text` with every credential string replaced: the last line of defence for error messages. */
export function redact(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets);
}
