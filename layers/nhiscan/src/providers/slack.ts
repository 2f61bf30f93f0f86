/**
 * The Slack review (DESIGN §20): `POST auth.test` (who the token is; read-only) and the scopes Slack
 * returns in its `x-oauth-scopes` header. No channel or message is read.
 */
import type { Fetch } from '../../../../lib/http/fetch.ts';
import { rulesOf } from '../catalogue.ts';
import { CredentialRejected, errorChecks, firstCallFailed, ProviderError, type ReviewContext } from '../review.ts';
import { callApi, objectOf, scopesOf } from './http-api.ts';

const REJECTED = new Set(['invalid_auth', 'not_authed', 'token_revoked', 'account_inactive', 'token_expired']);
const HISTORY = ['channels:history', 'groups:history', 'im:history', 'mpim:history'];

export const isPrivilegedSlackScope = (scope: string): boolean =>
  scope === 'admin' || scope.startsWith('admin.') || scope.startsWith('admin:') || HISTORY.includes(scope);

export async function reviewSlack(
  context: ReviewContext,
  token: string,
  fetch: Fetch,
  base: string,
): Promise<'invalid' | 'valid' | 'unknown'> {
  const { report } = context;
  const rules = rulesOf('slack');
  let body: Record<string, unknown>;
  let headers: Record<string, string>;
  try {
    const answer = await callApi({
      fetch,
      base,
      path: '/auth.test',
      method: 'POST',
      authorization: { authorization: `Bearer ${token}` },
      provider: 'Slack',
    });
    body = objectOf(answer.json, 'Slack auth.test');
    headers = answer.headers;
    if (body.ok !== true) {
      const code = typeof body.error === 'string' ? body.error : 'unknown';
      if (REJECTED.has(code)) throw new CredentialRejected(`Slack answered ${code}`);
      if (code === 'ratelimited') throw new ProviderError('Slack throttled auth.test (ratelimited); not judged');
      throw new ProviderError(`Slack auth.test answered ok: false (${code.slice(0, 60)})`);
    }
  } catch (error) {
    return firstCallFailed(context, rules, error, { why: 'the vault entry is stale.', evidence: { provider: 'slack' } });
  }
  const team = typeof body.team === 'string' ? body.team : 'unknown';
  const user = typeof body.user === 'string' ? body.user : 'unknown';
  const subject = `Slack token of ${user} in ${team}`;
  const evidence = {
    provider: 'slack',
    team,
    team_id: body.team_id ?? null,
    user,
    user_id: body.user_id ?? null,
    bot_id: body.bot_id ?? null,
  };
  report.pass('nhi.credential.invalid', `Slack accepts the token (${user} in ${team})`);
  if (token.startsWith('xoxp-')) {
    report.fail('nhi.slack.user_token', {
      detail: `The token is a user token of ${user}.`,
      evidence,
      fingerprint_key: 'user_token',
      subject,
    });
  } else
    report.pass('nhi.slack.user_token', `${token.slice(0, 5)} token${typeof body.bot_id === 'string' ? ` of bot ${body.bot_id}` : ''}`);
  const scopes = scopesOf(headers['x-oauth-scopes']);
  if (scopes === undefined) {
    errorChecks(
      context,
      ['nhi.slack.privileged_scopes'],
      new ProviderError("Slack's answer has no x-oauth-scopes header: the token's scopes cannot be read"),
    );
  } else {
    const privileged = scopes.filter(isPrivilegedSlackScope);
    if (privileged.length > 0) {
      report.fail('nhi.slack.privileged_scopes', {
        detail: `The token has ${privileged.join(', ')}.`,
        evidence: { ...evidence, scopes, privileged },
        fingerprint_key: 'privileged_scopes',
        subject,
      });
    } else report.pass('nhi.slack.privileged_scopes', `scopes: ${scopes.join(', ') || '(none)'}`);
  }
  return 'valid';
}
