import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedCredential } from '../../../lib/credential.ts';
import { BlobTriage } from '../src/blob-triage.ts';
import { cloneRepository } from '../../../lib/git/clone.ts';
import { GitHttpClient } from '../../../lib/git/git-http.ts';
import { walkHistory } from '../src/history.ts';
import { scanBlobs } from '../src/scan-blobs.ts';
import { DEFAULT_BOUNDS } from '../src/bounds.ts';
import { scanRepository, type ReportSink, type ScanContext } from '../src/scan.ts';
import { resolveScope, type SecretScanScope } from '../src/scope.ts';
import type { Coverage } from '../../../lib/report.ts';
import { sha256Hex } from '../src/secret-evidence.ts';
import { gitAvailable, startGitServer, type GitServer } from '../../../test/helpers/git-http-server.ts';
import { plantedValues } from './planted.ts';
import { buildRepositories, type Fixtures } from './repositories.ts';

interface Collected {
  passed: Map<string, string>;
  findings: { ruleId: string; detail: string; evidence: Record<string, any>; fingerprint_key: string }[];
  errors: { ruleIds: readonly string[]; message: string }[];
  progress: string[];
  coverage?: Coverage;
}

function collector(): { sink: ReportSink; collected: Collected } {
  const collected: Collected = { passed: new Map(), findings: [], errors: [], progress: [] };
  const sink: ReportSink = {
    pass: (ruleId, detail = '') => collected.passed.set(ruleId, detail),
    fail: (ruleId, finding) => collected.findings.push({ ruleId, ...finding }),
    error: (ruleIds, message) => collected.errors.push({ ruleIds: typeof ruleIds === 'string' ? [ruleIds] : ruleIds, message }),
    covered: (coverage) => (collected.coverage = coverage),
  };
  return { sink, collected };
}

const loopback: ScanContext['resolve'] = async (host) => {
  if (host !== '127.0.0.1') throw new Error(`refused ${host}`);
  return [{ address: host, family: 4 }];
};

describe.skipIf(!gitAvailable())('scanRepository against git http-backend', () => {
  let server: GitServer;
  let fixtures: Fixtures;

  beforeAll(async () => {
    server = await startGitServer();
    fixtures = await buildRepositories(server);
  });
  afterAll(() => server?.close());

  async function scan(name: string, scope: SecretScanScope = {}, overrides: Partial<ScanContext> = {}): Promise<Collected> {
    const { sink, collected } = collector();
    await scanRepository(new URL(`${server.origin}/${name}.git`), resolveScope(scope), sink, {
      resolve: loopback,
      env: {},
      progress: (event, fields) => collected.progress.push(JSON.stringify({ event, ...fields })),
      signal: AbortSignal.timeout(60_000),
      allowHttp: true,
      bounds: DEFAULT_BOUNDS,
      ...overrides,
    });
    return collected;
  }

  const byHash = (collected: Collected, value: string) =>
    collected.findings.find((finding) => finding.fingerprint_key === sha256Hex(value));

  it('finds every planted secret, in the head and only in history, and no decoy', async () => {
    const result = await scan('leaky');
    const { planted, historyOnly, sharedToken } = fixtures;
    expect(result.errors).toEqual([]);
    const expected: [string, string, boolean][] = [
      [planted.awsKeyId, 'secret.aws_access_key_id', true],
      [planted.awsSecret, 'secret.aws_access_key', true],
      [planted.githubToken, 'secret.github_token', true],
      [planted.privateKey.trim(), 'secret.private_key', true],
      [historyOnly.slackToken, 'secret.slack_token', false],
      [historyOnly.npmToken, 'secret.npm_token', false],
      [sharedToken, 'secret.gitlab_token', true],
      [planted.genericSecret, 'secret.generic_high_entropy', true],
      [planted.dbPassword, 'secret.database_connection_string', true],
      [planted.stripeKey, 'secret.stripe_key', true],
      [planted.urlPassword, 'secret.basic_auth_url', true],
    ];
    for (const [value, ruleId, inHead] of expected) {
      expect(byHash(result, value), ruleId).toMatchObject({ ruleId, evidence: { in_head: inHead } });
    }
    // Nothing else: no decoy (documentation keys, placeholders, lock files, fixtures, bundles,
    // binaries), no inline-allowed token, no fingerprint of .secretscanignore.
    expect(result.findings.map((finding) => finding.ruleId).sort()).toEqual(expected.map(([, ruleId]) => ruleId).sort());
    expect(byHash(result, fixtures.ignoredToken)).toBeUndefined();
    expect(result.passed.get('secret.slack_token')).toMatch(/1 secret allowed by \.secretscanignore/);
    expect(result.passed.get('secret.slack_token')).toMatch(/1 binary skipped/);
  });

  it('reads again only the blobs the indexing pass found something to look for in, with the same results', async () => {
    const signal = AbortSignal.timeout(60_000);
    const { maxBlobBytes } = DEFAULT_BOUNDS;
    const http = new GitHttpClient({
      resolve: loopback,
      origin: server.origin,
      maxResponseBytes: DEFAULT_BOUNDS.maxPackBytes,
      idleTimeoutMs: DEFAULT_BOUNDS.idleTimeoutMs,
      allowHttp: true,
      signal,
    });
    const triage = new BlobTriage(maxBlobBytes);
    const repo = await cloneRepository({
      url: `${server.origin}/leaky.git`,
      depth: 101,
      http,
      signal,
      authorized: false,
      cacheBytes: 8 << 20,
      maxObjectBytes: 64 << 20,
      onBlob: triage.inspect,
    });
    try {
      const walk = await walkHistory({ store: repo.store, tip: repo.tip, shallow: repo.shallow, maxCommits: 100, maxBlobs: 1000, signal });
      const verdicts = [...walk.blobs.keys()].map((ordinal) => triage.verdict(ordinal));
      expect(verdicts.every((verdict) => verdict !== undefined)).toBe(true);
      expect(verdicts.filter((verdict) => verdict!.binary)).toHaveLength(1);
      expect(verdicts.filter((verdict) => !verdict!.binary && !verdict!.mayHoldSecrets).length).toBeGreaterThan(0);
      const triaged = await scanBlobs(repo, walk, { maxBlobBytes, pathsIgnore: [], signal, triage });
      const readAgain = await scanBlobs(repo, walk, { maxBlobBytes, pathsIgnore: [], signal });
      expect(triaged).toEqual(readAgain);
      expect(triaged.secrets.length).toBeGreaterThan(10);
    } finally {
      await repo.dispose();
    }
  });

  it('reports a secret held by 50 files once, with its 50 locations', async () => {
    const result = await scan('leaky');
    const shared = byHash(result, fixtures.sharedToken)!;
    expect(shared.evidence.locations_total).toBe(50);
    expect(new Set(shared.evidence.locations.map((location: { path: string }) => location.path)).size).toBe(50);
    expect(result.findings.filter((finding) => finding.ruleId === 'secret.gitlab_token')).toHaveLength(1);
  });

  it('gives the evidence of DESIGN §13 and never the value', async () => {
    const result = await scan('leaky');
    const slack = byHash(result, fixtures.historyOnly.slackToken)!;
    expect(slack.evidence).toMatchObject({
      path: 'scripts/release.sh',
      line: 2,
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      author_date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      in_head: false,
      masked: `${fixtures.historyOnly.slackToken.slice(0, 4)}********`,
      length: fixtures.historyOnly.slackToken.length,
      sha256: sha256Hex(fixtures.historyOnly.slackToken),
    });
    expect(slack.detail).toMatch(/only in history/);
    const everything = JSON.stringify(result);
    for (const value of plantedValues(fixtures.planted)) expect(everything).not.toContain(value);
  });

  it('scans only the tip when history is off', async () => {
    const result = await scan('leaky', { history: false });
    expect(byHash(result, fixtures.historyOnly.slackToken)).toBeUndefined();
    expect(byHash(result, fixtures.planted.githubToken)).toBeDefined();
    expect(result.passed.get('secret.github_token')).toMatch(/from 1 commit\b/);
  });

  it('walks at most max_commits and says the history was cut', async () => {
    const result = await scan('leaky', { max_commits: 2 });
    expect(byHash(result, fixtures.historyOnly.slackToken)).toBeUndefined();
    expect(result.passed.get('secret.github_token')).toMatch(/history cut at max_commits/);
  });

  it('scans the branch the scope names, and says when it does not exist', async () => {
    const onMain = await scan('branched');
    expect(onMain.errors).toEqual([]);
    expect(byHash(onMain, fixtures.featureToken)).toBeUndefined();
    const onFeature = await scan('branched', { branch: 'feature/login' });
    expect(byHash(onFeature, fixtures.featureToken)).toMatchObject({ ruleId: 'secret.github_token', evidence: { in_head: true } });
    expect(onFeature.findings[0].detail).toMatch(/still in feature\/login/);
    const missing = await scan('branched', { branch: 'nope' });
    expect(missing.passed.size).toBe(0);
    expect(missing.errors[0].message).toBe('branch nope not found');
  });

  it('skips paths_ignore', async () => {
    const result = await scan('leaky', { paths_ignore: ['services/**', 'app/*.py'] });
    expect(byHash(result, fixtures.sharedToken)).toBeUndefined();
    expect(byHash(result, fixtures.planted.genericSecret)).toBeUndefined();
    expect(byHash(result, fixtures.planted.githubToken)).toBeDefined();
  });

  const gitToken = (token: string, allowed_hosts = ['127.0.0.1']): LoadedCredential => ({
    alias: 'ci',
    kind: 'git_token',
    secret: { token },
    allowed_hosts,
  });

  it("clones a private repository with the tenant's git_token credential, and never shows the token", async () => {
    const result = await scan('private', { credential: 'ci' }, { credential: gitToken(fixtures.serverToken) });
    expect(result.errors).toEqual([]);
    expect(byHash(result, fixtures.privateToken)).toMatchObject({ ruleId: 'secret.github_token' });
    expect(JSON.stringify(result)).not.toContain(fixtures.serverToken);
  });

  it('is an error, not a clean result, without the credential, with a wrong one, or one not bound to the host', async () => {
    const without = await scan('private');
    expect(without.findings).toEqual([]);
    expect(without.passed.size).toBe(0);
    expect(without.errors[0].message).toBe('the repository needs a credential (HTTP 401); set scope.credential');
    const wrong = await scan('private', { credential: 'ci' }, { credential: gitToken('not-the-token') });
    expect(wrong.errors[0].message).toBe('the server refused the credential (HTTP 401)');
    const unset = await scan('private', { credential: 'ci' });
    expect(unset.errors[0].message).toBe('the scope names credential ci, but no credential file was given');
    const before = server.requests.length;
    const elsewhere = await scan('private', { credential: 'ci' }, { credential: gitToken(fixtures.serverToken, ['git.example.com']) });
    expect(elsewhere.errors[0].message).toBe('credential ci may not be sent to 127.0.0.1: not in its allowed_hosts');
    expect(server.requests.length).toBe(before);
  });

  it('drops the credential on a redirect to another origin: the token never reaches it', async () => {
    // A front on another port (another origin, same host) that redirects every request to the Git server.
    const front = createServer((req, res) => {
      fronted.push(req.headers.authorization !== undefined);
      res.writeHead(302, { location: `${server.origin}${(req.url ?? '/').replace(/^\/moved/, '')}` }).end();
    });
    const fronted: boolean[] = [];
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const frontOrigin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
      const before = server.requests.length;
      const { sink, collected } = collector();
      await scanRepository(new URL(`${frontOrigin}/moved/private.git`), resolveScope({ credential: 'ci' }), sink, {
        resolve: loopback,
        env: {},
        progress: (event, fields) => collected.progress.push(JSON.stringify({ event, ...fields })),
        signal: AbortSignal.timeout(30_000),
        allowHttp: true,
        bounds: DEFAULT_BOUNDS,
        credential: gitToken(fixtures.serverToken),
      });
      expect(fronted).toEqual([true]);
      const redirected = server.requests.slice(before);
      expect(redirected.length).toBeGreaterThan(0);
      expect(redirected.every((request) => !request.authorized)).toBe(true);
      expect(collected.passed.size).toBe(0);
      expect(collected.errors[0].message).toBe(
        `the repository redirected to ${server.origin}, another origin, which answered HTTP 401: the credential is never sent across origins`,
      );
      expect(JSON.stringify(collected)).not.toContain(fixtures.serverToken);
    } finally {
      await new Promise((resolve) => front.close(resolve));
    }
  });

  it('stops at the pack bound with an error', async () => {
    const result = await scan('big', {}, { bounds: { ...DEFAULT_BOUNDS, maxPackBytes: 100_000 } });
    expect(result.passed.size).toBe(0);
    expect(result.errors[0].message).toBe("the repository's fetch exceeds 100000 bytes (the pack bound)");
  });

  it('skips blobs over the blob bound and says so', async () => {
    const result = await scan('big', {}, { bounds: { ...DEFAULT_BOUNDS, maxBlobBytes: 100_000 } });
    expect(result.errors).toEqual([]);
    expect(result.passed.get('secret.github_token')).toMatch(/1 over the blob size bound skipped/);
  });

  it('stops at the files bound with an error', async () => {
    const result = await scan('leaky', {}, { bounds: { ...DEFAULT_BOUNDS, maxFiles: 10 } });
    expect(result.errors[0].message).toBe('the repository holds more than 10 distinct files (the files bound)');
  });

  it('scans a repository with a submodule without following it', async () => {
    const result = await scan('with-submodule');
    expect(result.errors).toEqual([]);
    expect(byHash(result, fixtures.planted.githubToken)).toBeDefined();
    expect(result.passed.get('secret.slack_token')).toMatch(/1 submodule not followed/);
  });

  it('reports a URL that is not a Git repository as an error', async () => {
    const { sink, collected } = collector();
    await scanRepository(new URL(`${server.origin}/site/page`), resolveScope({}), sink, {
      resolve: loopback,
      env: {},
      progress: () => {},
      signal: AbortSignal.timeout(30_000),
      allowHttp: true,
      bounds: DEFAULT_BOUNDS,
    });
    expect(collected.passed.size).toBe(0);
    expect(collected.errors[0].message).toBe('the URL does not speak Git smart HTTP');
    const missing = await scan('no-such-repository');
    expect(missing.errors[0].message).toBe('no Git repository answers at this URL (HTTP 404)');
  });

  it('connects only where the resolver allows', async () => {
    const refused = await scan('leaky', {}, { resolve: async () => Promise.reject(new Error('127.0.0.1 is loopback (refused)')) });
    expect(refused.errors[0].message).toMatch(/refused/);
  });
});
