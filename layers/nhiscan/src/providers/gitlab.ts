/**
 * The GitLab review (DESIGN §20): `GET /personal_access_tokens/self` (the token's own scopes and
 * expiry; project and group access tokens answer it too) and `GET /user` (is its user an
 * administrator). Read-only; no project content is read.
 */
import type { Fetch } from '../../../../lib/http/fetch.ts';
import { rulesOf } from '../catalogue.ts';
import { CredentialRejected, errorChecks, firstCallFailed, ProviderError, type ReviewContext } from '../review.ts';
import { callApi, objectOf } from './http-api.ts';

export const GITLAB_PRIVILEGED = ['api', 'sudo', 'admin_mode', 'write_repository'];

export async function reviewGitlab(
  context: ReviewContext,
  token: string,
  fetch: Fetch,
  base: string,
): Promise<'invalid' | 'valid' | 'unknown'> {
  const { report } = context;
  const rules = rulesOf('gitlab');
  const authorization = { 'private-token': token };
  let self: Record<string, unknown>;
  try {
    const answer = await callApi({ fetch, base, path: '/personal_access_tokens/self', authorization, provider: 'GitLab' });
    self = objectOf(answer.json, 'GitLab personal_access_tokens/self');
  } catch (error) {
    return firstCallFailed(context, rules, error, {
      why: 'the token is revoked, expired or mistyped; the vault entry is stale.',
      evidence: { provider: 'gitlab' },
    });
  }
  if (self.revoked === true || self.active === false) {
    report.fail('nhi.credential.invalid', {
      detail: `GitLab says the token is ${self.revoked === true ? 'revoked' : 'inactive'}: the vault entry is stale.`,
      evidence: { provider: 'gitlab', token_name: self.name ?? null },
      fingerprint_key: 'credential',
      subject: 'the credential',
    });
    report.skip(rules, 'the provider rejects the credential (nhi.credential.invalid)');
    return 'invalid';
  }
  const name = typeof self.name === 'string' ? self.name : 'unnamed';
  const subject = `GitLab token ${name}`;
  const evidence = {
    provider: 'gitlab',
    token_name: name,
    token_id: self.id ?? null,
    created_at: self.created_at ?? null,
    last_used_at: self.last_used_at ?? null,
  };
  report.pass('nhi.credential.invalid', `GitLab accepts the token (${name})`);

  if (!Array.isArray(self.scopes) || !self.scopes.every((scope) => typeof scope === 'string')) {
    errorChecks(context, ['nhi.gitlab.privileged_scopes'], new ProviderError('personal_access_tokens/self has no scopes list'));
  } else {
    const scopes = self.scopes;
    const privileged = scopes.filter((scope) => GITLAB_PRIVILEGED.includes(scope));
    if (privileged.length > 0) {
      report.fail('nhi.gitlab.privileged_scopes', {
        detail: `Token ${name} has ${privileged.join(', ')}.`,
        evidence: { ...evidence, scopes, privileged },
        fingerprint_key: 'privileged_scopes',
        subject,
      });
    } else report.pass('nhi.gitlab.privileged_scopes', `scopes: ${scopes.join(', ')}`);
  }

  if (!('expires_at' in self))
    errorChecks(context, ['nhi.gitlab.no_expiry'], new ProviderError('personal_access_tokens/self has no expires_at field'));
  else if (self.expires_at === null) {
    report.fail('nhi.gitlab.no_expiry', { detail: `Token ${name} has no expiration.`, evidence, fingerprint_key: 'no_expiry', subject });
  } else report.pass('nhi.gitlab.no_expiry', `expires ${JSON.stringify(self.expires_at)}`);

  try {
    const answer = await callApi({ fetch, base, path: '/user', authorization, provider: 'GitLab' });
    const user = objectOf(answer.json, 'GitLab /user');
    const username = typeof user.username === 'string' ? user.username : 'unknown';
    // GitLab shows `is_admin` only to administrators: its absence means the user is not one.
    if (user.is_admin === true) {
      report.fail('nhi.gitlab.admin_user', {
        detail: `Token ${name} belongs to ${username}, a GitLab administrator.`,
        evidence: { ...evidence, username },
        fingerprint_key: 'admin_user',
        subject,
      });
    } else report.pass('nhi.gitlab.admin_user', `${username} is not an administrator`);
  } catch (error) {
    errorChecks(context, ['nhi.gitlab.admin_user'], error instanceof CredentialRejected ? new ProviderError(error.message) : error);
  }
  return 'valid';
}
