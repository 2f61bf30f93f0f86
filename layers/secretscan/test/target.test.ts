import { describe, expect, it } from 'vitest';
import { parseRepositoryTarget } from '../../../lib/git/repository-url.ts';
import { SecretScanScope } from '../src/scope.ts';

describe('parseRepositoryTarget', () => {
  it('takes https repository URLs and clones scp-like ones over https', () => {
    expect(parseRepositoryTarget('https://github.com/acme/api')).toEqual({ ok: true, target: 'https://github.com/acme/api' });
    expect(parseRepositoryTarget(' https://GitLab.com/acme/mobile.git/ ')).toEqual({
      ok: true,
      target: 'https://gitlab.com/acme/mobile.git',
    });
    expect(parseRepositoryTarget('git@github.com:acme/api.git')).toEqual({ ok: true, target: 'https://github.com/acme/api.git' });
  });

  it('refuses credentials, other schemes, bare hosts and queries', () => {
    expect(parseRepositoryTarget('https://user:pw@github.com/acme/api')).toMatchObject({
      ok: false,
      message: expect.stringContaining('credentials'),
    });
    expect(parseRepositoryTarget('ftp://files.example.com/code.zip')).toMatchObject({ ok: false });
    expect(parseRepositoryTarget('https://github.com/')).toMatchObject({ ok: false });
    expect(parseRepositoryTarget('https://github.com/acme/api?ref=main')).toMatchObject({ ok: false });
  });
});

describe('SecretScanScope', () => {
  it('takes the fields of DESIGN §13 and refuses unknown ones and tokens as credential names', () => {
    expect(
      SecretScanScope.parse({ branch: 'release/1.2', history: false, max_commits: 50, paths_ignore: ['vendor/**'], credential: 'ci_bot' }),
    ).toBeTruthy();
    expect(SecretScanScope.safeParse({ branches: ['main'] }).success).toBe(false);
    expect(SecretScanScope.safeParse({ credential: 'ghp_abc:def' }).success).toBe(false);
    expect(SecretScanScope.safeParse({ branch: '../etc' }).success).toBe(false);
    expect(SecretScanScope.safeParse({ max_commits: 0 }).success).toBe(false);
  });
});
