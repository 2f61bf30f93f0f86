import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  credentialAllowsHost,
  credentialFingerprint,
  credentialSecrets,
  hostMatches,
  hostPatternProblem,
  loadCredential,
  SECRET_SCHEMAS,
} from '../../lib/credential.ts';

describe('allowed_hosts matching', () => {
  it('matches exact names case-insensitively and without a trailing dot', () => {
    expect(hostMatches('git.example.com', 'GIT.example.com.')).toBe(true);
    expect(hostMatches('git.example.com', 'git.example.com.evil.test')).toBe(false);
    expect(hostMatches('git.example.com', 'xgit.example.com')).toBe(false);
  });

  it('matches a wildcard on exactly one label', () => {
    expect(hostMatches('*.example.com', 'a.example.com')).toBe(true);
    expect(hostMatches('*.example.com', 'example.com')).toBe(false);
    expect(hostMatches('*.example.com', 'a.b.example.com')).toBe(false);
    expect(hostMatches('*.example.com', 'aexample.com')).toBe(false);
    expect(hostMatches('*.example.com', '192.0.2.1')).toBe(false);
  });

  it('matches IP literals in any spelling of the same address', () => {
    expect(hostMatches('2001:db8::7', '[2001:DB8:0:0::7]')).toBe(true);
    expect(hostMatches('192.0.2.7', '192.0.2.7')).toBe(true);
    expect(hostMatches('192.0.2.7', '192.0.2.70')).toBe(false);
  });

  it('names the problem of entries that are not hosts', () => {
    expect(hostPatternProblem('https://git.example.com')).toMatch(/scheme/);
    expect(hostPatternProblem('git.example.com/owner')).toMatch(/path/);
    expect(hostPatternProblem('*')).toMatch(/bare/);
    expect(hostPatternProblem('git.*.com')).toMatch(/first label/);
    expect(hostPatternProblem('*.com')).not.toBeNull();
    expect(hostPatternProblem('git.example.com:443')).toMatch(/port/);
    expect(hostPatternProblem('[::1]')).toMatch(/brackets/);
    expect(hostPatternProblem('127.1')).not.toBeNull();
    expect(hostPatternProblem('git.example.com')).toBeNull();
    expect(hostPatternProblem('*.example.com')).toBeNull();
    expect(hostPatternProblem('::1')).toBeNull();
  });

  it('never allows a provider kind to a host, whatever its list says', () => {
    expect(credentialAllowsHost({ kind: 'github_token', allowed_hosts: ['api.github.com'] }, 'api.github.com')).toBe(false);
    expect(credentialAllowsHost({ kind: 'git_token', allowed_hosts: ['git.example.com'] }, 'git.example.com')).toBe(true);
  });
});

describe('secret shapes', () => {
  it('refuses a header value that could start another header, and a 1 MB token', () => {
    expect(SECRET_SCHEMAS.http_header().safeParse({ name: 'Cookie', value: 'a=b\r\nX-Evil: 1' }).success).toBe(false);
    expect(SECRET_SCHEMAS.git_token().safeParse({ token: 'x'.repeat(1024 * 1024) }).success).toBe(false);
    expect(SECRET_SCHEMAS.git_token().safeParse({ token: 'tok', extra: 1 }).success).toBe(false);
    expect(SECRET_SCHEMAS.http_header().safeParse({ name: 'Cookie', value: 'session=abc; theme=dark' }).success).toBe(true);
  });

  it('fingerprints the primary value: the first 8 hex of its SHA-256', () => {
    // sha256("abc") = ba7816bf…
    expect(credentialFingerprint('git_token', { token: 'abc' })).toBe('ba7816bf');
    expect(credentialFingerprint('http_header', { name: 'X-Key', value: 'abc' })).toBe('ba7816bf');
    expect(credentialFingerprint('aws_access_key', { access_key_id: 'AKIAEXAMPLEEXAMPLE00', secret_access_key: 'abc' })).toBe('ba7816bf');
  });

  it("lists a git token's Basic encoding among the strings to redact", () => {
    const secrets = credentialSecrets({ alias: 'ci', kind: 'git_token', secret: { token: 'tok-123' }, allowed_hosts: ['h.test'] });
    expect(secrets).toEqual(['tok-123', Buffer.from('x-access-token:tok-123').toString('base64')]);
  });
});

describe('loadCredential', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credential-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const file = { alias: 'ci-bot', kind: 'git_token', secret: { token: 'ghp_planted' }, allowed_hosts: ['git.example.com'] };

  it('reads a 0600 file written as the dispatch writes it', async () => {
    const path = join(dir, 'good.json');
    await writeFile(path, JSON.stringify(file), { mode: 0o600 });
    expect(await loadCredential(path)).toEqual(file);
  });

  it('refuses a file others may read', async () => {
    const path = join(dir, 'open.json');
    await writeFile(path, JSON.stringify(file));
    await chmod(path, 0o644);
    await expect(loadCredential(path)).rejects.toThrow(/read by others/);
  });

  it('names the fields of a wrong file, never their values', async () => {
    const path = join(dir, 'wrong.json');
    await writeFile(path, JSON.stringify({ ...file, secret: { token: 'has space planted-value' } }), { mode: 0o600 });
    const error = await loadCredential(path).then(
      () => '',
      (caught: Error) => caught.message,
    );
    expect(error).toMatch(/secret\.token/);
    expect(error).not.toMatch(/planted-value/);
  });
});
