import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, MAPPED_SECRETLINT_RULES, RULE_IDS } from '../src/catalogue.ts';
import { detectSecrets } from '../src/detect.ts';
import { findHighEntropyAssignments, isHighEntropySecret } from '../src/entropy-rule.ts';
import { entropyGuardForPath, isBinary, looksMinified } from '../src/path-guards.ts';
import { parseIgnoreFile } from '../src/ignore-file.ts';
import { digestSecret } from '../src/secret-evidence.ts';
import { redact, repositoryCredential } from '../../../lib/git/repository-credential.ts';
import { integrityHash, plantSecrets, randomSecret } from './planted.ts';

describe('the catalogue', () => {
  it('maps every rule of the recommended preset but its comment filter', () => {
    const preset = (presetRules as { meta: { id: string } }[]).map((rule) => rule.meta.id).filter((id) => !id.endsWith('filter-comments'));
    expect([...MAPPED_SECRETLINT_RULES].sort()).toEqual([...preset].sort());
  });

  it('names the rules of DESIGN §13 with their severities', () => {
    const severity = Object.fromEntries(CATALOGUE.map((rule) => [rule.rule_id, rule.severity]));
    expect(severity).toMatchObject({
      'secret.aws_access_key': 'critical',
      'secret.private_key': 'critical',
      'secret.gcp_service_account': 'critical',
      'secret.github_token': 'high',
      'secret.slack_token': 'high',
      'secret.npm_token': 'high',
      'secret.basic_auth_url': 'high',
      'secret.generic_high_entropy': 'medium',
    });
    expect(new Set(RULE_IDS).size).toBe(RULE_IDS.length);
  });
});

describe('detectSecrets', () => {
  const planted = plantSecrets();

  it('finds provider secrets with their rule, value and line', async () => {
    const text = [
      '# production settings',
      `AWS_ACCESS_KEY_ID=${planted.awsKeyId}`,
      `aws_secret_access_key = "${planted.awsSecret}"`,
      `const github = '${planted.githubToken}';`,
      `slack: ${planted.slackToken}`,
      `DATABASE_URL=postgres://app:${planted.dbPassword}@db.internal.example/app`,
      `STRIPE=${planted.stripeKey}`,
      planted.privateKey,
    ].join('\n');
    const matches = await detectSecrets('config/prod.env', text, { entropy: true });
    const byRule = Object.fromEntries(matches.map((match) => [match.ruleId, match]));
    expect(byRule['secret.aws_access_key_id']).toMatchObject({ value: planted.awsKeyId, line: 2 });
    expect(byRule['secret.aws_access_key']).toMatchObject({ value: planted.awsSecret, line: 3 });
    expect(byRule['secret.github_token']).toMatchObject({ value: planted.githubToken, line: 4 });
    expect(byRule['secret.slack_token']).toMatchObject({ value: planted.slackToken, line: 5 });
    expect(byRule['secret.database_connection_string']).toMatchObject({ value: planted.dbPassword, line: 6 });
    expect(byRule['secret.stripe_key']).toMatchObject({ value: planted.stripeKey, line: 7, kind: 'STRIPE_SECRET_KEY_LIVE' });
    expect(byRule['secret.private_key']).toMatchObject({ value: planted.privateKey.trim(), line: 8 });
    // Values a provider rule found are not found again by the entropy rule.
    expect(matches.filter((match) => match.ruleId === 'secret.generic_high_entropy')).toEqual([]);
  });

  it('finds a GCP service-account key in a .json file as one gcp_service_account finding', async () => {
    const json = JSON.stringify(
      { type: 'service_account', project_id: 'acme', private_key_id: randomSecret(40).toLowerCase(), private_key: planted.privateKey },
      null,
      2,
    );
    const matches = await detectSecrets('deploy/service-account.json', json, { entropy: false });
    expect(matches.map((match) => match.ruleId)).toEqual(['secret.gcp_service_account']);
    expect(matches[0]).toMatchObject({ value: planted.privateKey, line: 5 });
    // The same text under another name is still a private key.
    expect((await detectSecrets('deploy/key.txt', json, { entropy: false })).map((match) => match.ruleId)).toEqual(['secret.private_key']);
  });

  it('reports documentation keys and placeholders as nothing', async () => {
    const text = [
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      'API_KEY=your-api-key-goes-here-1234',
      'password = "changeme"',
      'token: ${GITHUB_TOKEN}',
      'secret = process.env.SECRET_FROM_ENVIRONMENT',
      'api_key = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
      'auth_token = config.settings.authenticationToken',
      'url = https://user:password@example.com/',
    ].join('\n');
    expect(await detectSecrets('README.md', text, { entropy: true })).toEqual([]);
  });

  it('honours secretlint-disable-line for provider and entropy rules', async () => {
    const generic = randomSecret(40);
    const text = [
      `const token = '${planted.githubToken}'; // secretlint-disable-line`,
      `client_secret = "${generic}" # secretlint-disable-line`,
      '// secretlint-disable-next-line',
      `export const API_KEY = "${randomSecret(32)}";`,
    ].join('\n');
    expect(await detectSecrets('src/app.ts', text, { entropy: true })).toEqual([]);
  });

  it('finds a generic high-entropy assignment only when the entropy rule runs', async () => {
    const text = `SECRET_KEY = "${planted.genericSecret}"\n`;
    expect(await detectSecrets('settings.py', text, { entropy: true })).toEqual([
      { ruleId: 'secret.generic_high_entropy', kind: 'high_entropy_assignment', value: planted.genericSecret, line: 1 },
    ]);
    expect(await detectSecrets('settings.py', text, { entropy: false })).toEqual([]);
  });
});

describe('the entropy rule', () => {
  it('accepts generated values and refuses words, identifiers and repeated characters', () => {
    expect(isHighEntropySecret(randomSecret(32))).toBe(true);
    expect(isHighEntropySecret('correct-horse-battery-staple')).toBe(false);
    expect(isHighEntropySecret('this.props.sessionToken2')).toBe(false);
    expect(isHighEntropySecret('aaaaaaaaaaaaaaaaaaaaaaaa')).toBe(false);
    expect(isHighEntropySecret('REPLACE_WITH_YOUR_TOKEN_123')).toBe(false);
  });

  it('needs a secret-like name on the left', () => {
    const value = randomSecret(32);
    expect(findHighEntropyAssignments(`build_id = "${value}"`)).toEqual([]);
    expect(findHighEntropyAssignments(`"apiKey": "${value}"`)).toHaveLength(1);
  });
});

describe('the path guards', () => {
  it('keeps lock files, minified bundles and test fixtures from the entropy rule', () => {
    expect(entropyGuardForPath('package-lock.json')).toBe('lock_file');
    expect(entropyGuardForPath('sub/yarn.lock')).toBe('lock_file');
    expect(entropyGuardForPath('public/app.min.js')).toBe('minified');
    expect(entropyGuardForPath('test/fixtures/keys.json')).toBe('test_fixture');
    expect(entropyGuardForPath('src/auth.test.ts')).toBe('test_fixture');
    expect(entropyGuardForPath('pkg/auth_test.go')).toBe('test_fixture');
    expect(entropyGuardForPath('src/settings.py')).toBeNull();
    expect(entropyGuardForPath('src/contest/entry.py')).toBeNull();
  });

  it('tells a bundle by its lines and a binary by a NUL byte', () => {
    expect(looksMinified(`var a=${'x'.repeat(5000)};`)).toBe(true);
    expect(looksMinified('line\n'.repeat(2000))).toBe(false);
    expect(isBinary(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))).toBe(true);
    expect(isBinary(new TextEncoder().encode('plain text'))).toBe(false);
  });

  it('makes lock-file hashes high-entropy values the guard is there for', () => {
    const line = `  resolution: {integrity: ${integrityHash()}}`;
    expect(findHighEntropyAssignments(line)).toEqual([]);
  });
});

describe('evidence, allowlist and credentials', () => {
  it('masks to the first four characters and hashes the value', () => {
    const digest = digestSecret('abcd-secret-value');
    expect(digest).toEqual({ masked: 'abcd********', length: 17, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('reads fingerprints from .secretscanignore and reports lines that are not', () => {
    const hash = 'a'.repeat(64);
    const list = parseIgnoreFile(`# rotated 2024-05\n${hash} test key\n\nnot-a-hash\n${'B'.repeat(64)}\n`);
    expect([...list.fingerprints]).toEqual([hash, 'b'.repeat(64)]);
    expect(list.invalidLines).toEqual([4]);
  });

  it("builds Basic auth from a tenant's git_token for an allowed host only, and redacts it from text", () => {
    const token = randomSecret(30);
    const file = { alias: 'ci_bot', kind: 'git_token' as const, secret: { token }, allowed_hosts: ['*.example.com'] };
    const credential = repositoryCredential('ci_bot', file, 'git.example.com');
    expect(credential.authorization).toBe(`Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`);
    expect(redact(`failed with ${token} and ${credential.authorization}`, credential.secrets)).not.toContain(token);
    const named = repositoryCredential('ci_bot', { ...file, secret: { token, username: 'deploy' } }, 'git.example.com');
    expect(named.authorization).toBe(`Basic ${Buffer.from(`deploy:${token}`).toString('base64')}`);
    expect(() => repositoryCredential('ci_bot', file, 'evil.test')).toThrow('credential ci_bot may not be sent to evil.test');
    expect(() => repositoryCredential('ci_bot', undefined, 'git.example.com')).toThrow('no credential file was given');
  });
});
