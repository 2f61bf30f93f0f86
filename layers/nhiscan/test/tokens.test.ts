/**
 * GitHub, GitLab and Slack through loopback servers speaking their API shapes: GitHub's
 * X-OAuth-Scopes and github-authentication-token-expiration headers on GET /user, GitLab's
 * personal_access_tokens/self and /user, Slack's auth.test with its x-oauth-scopes header.
 * Bad answers (500, throttling, garbage, hanging, no scope header) are errors with a reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialFile } from '../../../lib/credential.ts';
import { rulesOf, type Provider } from '../src/catalogue.ts';
import { startFakeApi, type Answer, type FakeApi } from './helpers/fake-api.ts';
import { detailOf, runNhiscan, statuses } from './helpers/run-scan.ts';

const DAY = 86_400_000;
const githubDate = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
const json = (body: unknown, headers: Record<string, string> = {}): Answer => ({ status: 200, headers, body: JSON.stringify(body) });

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(async () => {
  await api?.close();
});

const ENV = () => ({
  NHISCAN_GITHUB_API: api.origin,
  NHISCAN_GITLAB_API: `${api.origin}/api/v4`,
  NHISCAN_SLACK_API: `${api.origin}/api`,
  NHISCAN_REQUEST_TIMEOUT_SECONDS: '0.5',
});
const credential = (kind: CredentialFile['kind'], token: string): CredentialFile =>
  ({ alias: 'bot', kind, secret: { token }, allowed_hosts: [] }) as CredentialFile;
const scan = (kind: CredentialFile['kind'], token: string, scope: Record<string, unknown> = {}) =>
  runNhiscan({ credential: credential(kind, token), env: ENV(), config: { leaked_sha256: [] }, scope });
const failing = (status: Record<string, string>, provider: Provider) => rulesOf(provider).filter((rule) => status[rule] === 'fail');

describe('GitHub', () => {
  it.each([
    [
      'a classic token without expiry and with admin:org',
      'ghp_' + 'a'.repeat(36),
      { 'x-oauth-scopes': 'repo, admin:org' },
      ['nhi.github.no_expiry', 'nhi.github.classic_pat', 'nhi.github.privileged_scopes'],
    ],
    [
      'an OAuth token expiring in 10 days with repo',
      'gho_' + 'b'.repeat(36),
      { 'x-oauth-scopes': 'repo', 'github-authentication-token-expiration': githubDate(Date.now() + 10 * DAY) },
      ['nhi.github.expires_soon'],
    ],
    [
      'an OAuth token expiring in 90 days with read:user',
      'gho_' + 'c'.repeat(36),
      { 'x-oauth-scopes': 'read:user', 'github-authentication-token-expiration': githubDate(Date.now() + 90 * DAY) },
      [],
    ],
    [
      'a token with workflow',
      'gho_' + 'd'.repeat(36),
      { 'x-oauth-scopes': 'workflow', 'github-authentication-token-expiration': githubDate(Date.now() + 90 * DAY) },
      ['nhi.github.privileged_scopes'],
    ],
  ])('%s', async (_name, token, headers, fails) => {
    api.answer((request) =>
      request.path === '/user' && request.headers.authorization === `Bearer ${token}`
        ? json({ login: 'ci-bot', id: 7 }, headers)
        : { status: 401, body: '{"message":"Bad credentials"}' },
    );
    const { report } = await scan('github_token', token);
    const status = statuses(report);

    expect(failing(status, 'github')).toEqual(fails);
    expect(
      rulesOf('github')
        .filter((rule) => !fails.includes(rule))
        .map((rule) => status[rule]),
    ).toEqual(
      rulesOf('github')
        .filter((rule) => !fails.includes(rule))
        .map(() => 'pass'),
    );
    expect(status['nhi.credential.invalid']).toBe('pass');
    expect(api.seen.at(-1)!.method).toBe('GET');
  });

  it('reports a token GitHub answers 401 as invalid', async () => {
    api.answer(() => ({ status: 401, body: '{"message":"Bad credentials"}' }));
    const status = statuses((await scan('github_token', 'ghp_' + 'z'.repeat(36))).report);

    expect(status['nhi.credential.invalid']).toBe('fail');
    expect(rulesOf('github').map((rule) => status[rule])).toEqual(rulesOf('github').map(() => 'skipped'));
  });

  it('makes the scope check an error when the answer has no X-OAuth-Scopes header', async () => {
    api.answer(() => json({ login: 'ci-bot' }, { 'github-authentication-token-expiration': githubDate(Date.now() + 90 * DAY) }));
    const { report } = await scan('github_token', 'gho_' + 'e'.repeat(36));

    expect(statuses(report)['nhi.github.privileged_scopes']).toBe('error');
    expect(detailOf(report, 'nhi.github.privileged_scopes')).toMatch(/no X-OAuth-Scopes header/);
  });
});

describe('GitLab', () => {
  const token = 'glpat-' + 'x'.repeat(20);
  const self = (fields: Record<string, unknown>) => ({
    id: 4,
    name: 'deploy',
    revoked: false,
    created_at: '2026-01-01T00:00:00Z',
    scopes: ['read_api'],
    user_id: 3,
    last_used_at: null,
    active: true,
    expires_at: '2027-01-01',
    ...fields,
  });
  it.each([
    [
      'an api token of an administrator without expiry',
      self({ scopes: ['api', 'read_user'], expires_at: null }),
      { username: 'root', is_admin: true },
      ['nhi.gitlab.privileged_scopes', 'nhi.gitlab.admin_user', 'nhi.gitlab.no_expiry'],
    ],
    ['a read_api token of a user, expiring', self({}), { username: 'bot' }, []],
    [
      'a write_repository token',
      self({ scopes: ['write_repository'] }),
      { username: 'bot', is_admin: false },
      ['nhi.gitlab.privileged_scopes'],
    ],
  ])('%s', async (_name, tokenSelf, user, fails) => {
    api.answer((request) => {
      if (request.headers['private-token'] !== token) return { status: 401, body: '{"message":"401 Unauthorized"}' };
      if (request.path === '/api/v4/personal_access_tokens/self') return json(tokenSelf);
      if (request.path === '/api/v4/user') return json({ id: 3, ...user });
      return { status: 404, body: '{}' };
    });
    const status = statuses((await scan('gitlab_token', token)).report);

    expect(failing(status, 'gitlab')).toEqual(fails);
    expect(status['nhi.credential.invalid']).toBe('pass');
    expect(
      rulesOf('gitlab')
        .filter((rule) => !(fails as string[]).includes(rule))
        .every((rule) => status[rule] === 'pass'),
    ).toBe(true);
  });

  it('makes the admin check an error when /user is forbidden to the token', async () => {
    api.answer((request) => (request.path.endsWith('/self') ? json(self({})) : { status: 403, body: '{"error":"insufficient_scope"}' }));
    const { report } = await scan('gitlab_token', token);

    expect(statuses(report)['nhi.gitlab.admin_user']).toBe('error');
    expect(detailOf(report, 'nhi.gitlab.admin_user')).toMatch(/cannot read its own metadata/);
  });
});

describe('Slack', () => {
  it.each([
    ['a user token reading history', 'xoxp-1-2-3', 'channels:history,chat:write', ['nhi.slack.user_token', 'nhi.slack.privileged_scopes']],
    ['a bot token with an admin scope', 'xoxb-1-2-3', 'admin.conversations:write,chat:write', ['nhi.slack.privileged_scopes']],
    ['a bot token that writes only', 'xoxb-1-2-4', 'chat:write', []],
  ])('%s', async (_name, token, scopes, fails) => {
    api.answer((request) =>
      request.path === '/api/auth.test' && request.method === 'POST' && request.headers.authorization === `Bearer ${token}`
        ? json(
            { ok: true, url: 'https://acme.slack.com/', team: 'Acme', user: 'ci', team_id: 'T1', user_id: 'U1' },
            { 'x-oauth-scopes': scopes },
          )
        : json({ ok: false, error: 'invalid_auth' }),
    );
    const status = statuses((await scan('slack_token', token)).report);

    expect(failing(status, 'slack')).toEqual(fails);
    expect(
      rulesOf('slack')
        .filter((rule) => !fails.includes(rule))
        .every((rule) => status[rule] === 'pass'),
    ).toBe(true);
  });

  it('reports invalid_auth as invalid', async () => {
    api.answer(() => json({ ok: false, error: 'invalid_auth' }));
    expect(statuses((await scan('slack_token', 'xoxb-9')).report)['nhi.credential.invalid']).toBe('fail');
  });
});

describe('bad answers', () => {
  const cases: [string, Answer, RegExp][] = [
    ['500', { status: 500, body: 'down' }, /HTTP 500/],
    ['429', { status: 429, body: '{}' }, /throttled/],
    ['garbage JSON', { status: 200, body: '{"login": ' }, /not JSON/],
    ['a hang', 'hang', /no answer in time/],
  ];
  it.each(cases)('makes every GitHub check an error on %s', async (_what, answer, reason) => {
    api.answer(() => answer);
    const { report } = await scan('github_token', 'ghp_' + 'f'.repeat(36));
    const status = statuses(report);

    for (const rule of ['nhi.credential.invalid', ...rulesOf('github')])
      expect([rule, status[rule], detailOf(report, rule)]).toEqual([rule, 'error', expect.stringMatching(reason)]);
    expect(report.findings).toEqual([]);
  });

  it.each(cases)('makes every GitLab and Slack check an error on %s', async (_what, answer, reason) => {
    api.answer(() => answer);
    for (const [kind, provider] of [
      ['gitlab_token', 'gitlab'],
      ['slack_token', 'slack'],
    ] as const) {
      const { report } = await scan(kind, 'tok-' + provider);
      const status = statuses(report);
      for (const rule of ['nhi.credential.invalid', ...rulesOf(provider)])
        expect([rule, status[rule], detailOf(report, rule)]).toEqual([rule, 'error', expect.stringMatching(reason)]);
    }
  });

  it('makes the Slack scope check an error without its x-oauth-scopes header', async () => {
    api.answer(() => json({ ok: true, team: 'Acme', user: 'ci' }));
    const { report } = await scan('slack_token', 'xoxb-5');

    expect(statuses(report)['nhi.slack.privileged_scopes']).toBe('error');
    expect(detailOf(report, 'nhi.slack.privileged_scopes')).toMatch(/no x-oauth-scopes header/);
  });

  it('never sends the token across a redirect to another origin', async () => {
    const other = await startFakeApi();
    try {
      other.answer(() => json({ login: 'thief' }, { 'x-oauth-scopes': '' }));
      api.answer(() => ({ status: 302, headers: { location: `${other.origin}/user` }, body: '' }));
      const { report } = await scan('github_token', 'ghp_' + 'g'.repeat(36));

      expect(other.seen.filter((request) => JSON.stringify(request.headers).includes('ghp_'))).toEqual([]);
      expect(statuses(report)['nhi.credential.invalid']).toBe('error');
    } finally {
      await other.close();
    }
  });
});
