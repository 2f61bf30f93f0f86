/**
 * The GitHub review (DESIGN §20): `GET /user` with the token (read-only, the user's own profile),
 * then what GitHub says in the answer's headers: `X-OAuth-Scopes` and
 * `github-authentication-token-expiration`. No repository content is read.
 */
import type { Fetch } from '../../../../lib/http/fetch.ts';
import { rulesOf } from '../catalogue.ts';
import { days, errorChecks, firstCallFailed, isoDay, ProviderError, type ReviewContext } from '../review.ts';
import { callApi, objectOf, scopesOf } from './http-api.ts';

export const GITHUB_PRIVILEGED = ['admin:org', 'admin:enterprise', 'delete_repo', 'admin:repo_hook', 'workflow', 'site_admin'];

/** `2026-12-01 10:00:00 UTC` (GitHub's form) or ISO 8601. */
export function parseGithubExpiry(text: string): Date | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) (UTC|[+-]\d{4})$/.exec(text.trim());
  const iso = match ? `${match[1]}T${match[2]}${match[3] === 'UTC' ? 'Z' : `${match[3].slice(0, 3)}:${match[3].slice(3)}`}` : text.trim();
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export async function reviewGithub(
  context: ReviewContext,
  token: string,
  fetch: Fetch,
  base: string,
): Promise<'invalid' | 'valid' | 'unknown'> {
  const { report, settings } = context;
  const rules = rulesOf('github');
  let answer;
  try {
    answer = await callApi({ fetch, base, path: '/user', authorization: { authorization: `Bearer ${token}` }, provider: 'GitHub' });
    objectOf(answer.json, 'GitHub /user');
  } catch (error) {
    return firstCallFailed(context, rules, error, {
      why: 'the token is revoked, expired or mistyped; the vault entry is stale.',
      evidence: { provider: 'github' },
    });
  }
  const user = objectOf(answer.json, 'GitHub /user');
  const login = typeof user.login === 'string' ? user.login : 'unknown';
  const subject = `GitHub token of ${login}`;
  report.pass('nhi.credential.invalid', `GitHub accepts the token (user ${login})`);
  const evidence = { provider: 'github', login, token_prefix: token.slice(0, token.indexOf('_') + 1) || token.slice(0, 4) };

  if (token.startsWith('ghp_')) {
    report.fail('nhi.github.classic_pat', {
      detail: `The token of ${login} is a classic personal access token.`,
      evidence,
      fingerprint_key: 'classic_pat',
      subject,
    });
  } else report.pass('nhi.github.classic_pat', 'not a ghp_ classic token');

  const expiryHeader = answer.headers['github-authentication-token-expiration'];
  const now = context.now();
  if (expiryHeader === undefined) {
    report.fail('nhi.github.no_expiry', {
      detail: `GitHub sends no expiration for the token of ${login}: it never expires.`,
      evidence,
      fingerprint_key: 'no_expiry',
      subject,
    });
    report.pass('nhi.github.expires_soon', 'the token has no expiration (nhi.github.no_expiry)');
  } else {
    const expires = parseGithubExpiry(expiryHeader);
    if (!expires)
      report.error(
        ['nhi.github.no_expiry', 'nhi.github.expires_soon'],
        `github-authentication-token-expiration is not a date: ${expiryHeader.slice(0, 60)}`,
      );
    else {
      report.pass('nhi.github.no_expiry', `expires ${expires.toISOString()}`);
      const left = days(expires.getTime() - now.getTime());
      if (left <= settings.expiryWarningDays) {
        report.fail('nhi.github.expires_soon', {
          detail: `The token of ${login} expires on ${isoDay(expires)}, in ${left} days (warning at ${settings.expiryWarningDays}).`,
          evidence: { ...evidence, expires_at: expires.toISOString(), days_left: left },
          fingerprint_key: 'expires_soon',
          subject,
        });
      } else report.pass('nhi.github.expires_soon', `expires ${isoDay(expires)}, in ${left} days`);
    }
  }

  const scopes = scopesOf(answer.headers['x-oauth-scopes']);
  if (scopes === undefined) {
    if (token.startsWith('github_pat_')) {
      report.skip(
        'nhi.github.privileged_scopes',
        'a fine-grained token: GitHub reports its permissions per repository, not as X-OAuth-Scopes',
      );
    } else {
      errorChecks(
        context,
        ['nhi.github.privileged_scopes'],
        new ProviderError("GitHub's answer has no X-OAuth-Scopes header: the token's scopes cannot be read"),
      );
    }
  } else {
    const privileged = scopes.filter((scope) => GITHUB_PRIVILEGED.includes(scope));
    if (privileged.length > 0) {
      report.fail('nhi.github.privileged_scopes', {
        detail: `The token of ${login} has ${privileged.join(', ')}.`,
        evidence: { ...evidence, scopes, privileged },
        fingerprint_key: 'privileged_scopes',
        subject,
      });
    } else report.pass('nhi.github.privileged_scopes', `scopes: ${scopes.join(', ') || '(none)'}`);
  }
  return 'valid';
}
