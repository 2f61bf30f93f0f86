import { sha256Hex } from '../src/secret-evidence.ts';
import type { GitServer } from '../../../test/helpers/git-http-server.ts';
import { checksummedToken, integrityHash, plantSecrets, randomFrom, randomSecret, type Planted } from './planted.ts';

/** The repositories of the secretscan tests, built with git on the test's server. */
export interface Fixtures {
  planted: Planted;
  /** Secrets in history only (deleted later), and the one shared by 50 files. */
  historyOnly: { slackToken: string; npmToken: string };
  sharedToken: string;
  /** Allowed by .secretscanignore (its SHA-256 is listed there). */
  ignoredToken: string;
  privateToken: string;
  /** The basic-auth token the private repository's server demands. */
  serverToken: string;
  /** Only on branch feature/login of `branched`. */
  featureToken: string;
}

export async function buildRepositories(server: GitServer): Promise<Fixtures> {
  const planted = plantSecrets();
  const historyOnly = { slackToken: planted.slackToken, npmToken: planted.npmToken };
  const sharedToken = planted.gitlabToken;
  const ignoredToken = checksummedToken(['gh', 'p_'].join(''));
  const privateToken = checksummedToken(['gh', 'p_'].join(''));
  const serverToken = randomSecret(32);
  const featureToken = checksummedToken(['gh', 'p_'].join(''));

  const leaky = await server.repository('leaky');
  await leaky.commit('initial configuration', {
    'config/prod.env': `# production\nAWS_ACCESS_KEY_ID=${planted.awsKeyId}\naws_secret_access_key = "${planted.awsSecret}"\n`,
    'src/client.js': `export const client = new Octokit({ auth: '${planted.githubToken}' });\n`,
    'deploy/id_rsa': planted.privateKey,
    'README.md': '# leaky\nA service.\n',
  });
  await leaky.commit('add the release script', {
    'scripts/release.sh': `#!/bin/sh\ncurl -H "Authorization: Bearer ${historyOnly.slackToken}" https://slack.example/api\n`,
    '.npmrc': `//registry.npmjs.org/:_authToken=${historyOnly.npmToken}\n`,
  });
  await leaky.commit('remove leaked files', { 'scripts/release.sh': null, '.npmrc': null });
  const shared: Record<string, string> = {};
  for (let n = 1; n <= 50; n += 1)
    shared[`services/svc-${String(n).padStart(2, '0')}/ci.yml`] = `# service ${n}\ngitlab_token: ${sharedToken}\n`;
  await leaky.commit('fifty services with the same CI token', shared);
  await leaky.commit('settings and decoys', {
    'app/settings.py': `DEBUG = False\nSECRET_KEY = "${planted.genericSecret}"\nDATABASE = "postgres://app:${planted.dbPassword}@db.internal.example/app"\n`,
    'app/billing.py': `STRIPE_KEY = "${planted.stripeKey}"\nWEBHOOK = "https://deploy:${planted.urlPassword}@hooks.acme-corp.io/notify"\n`,
    'docs/aws.md':
      'Example: `aws_access_key_id = AKIAIOSFODNN7EXAMPLE` and `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`.\n',
    'config/example.env': 'API_KEY=your-api-key-goes-here-1234\npassword = "changeme"\nGITHUB_TOKEN=${GITHUB_TOKEN}\n',
    'pnpm-lock.yaml': Array.from({ length: 40 }, (_, n) => `  /pkg-${n}@1.0.${n}:\n    resolution: {integrity: ${integrityHash()}}\n`).join(
      '',
    ),
    'yarn.lock': Array.from(
      { length: 40 },
      (_, n) => `pkg-${n}@^1.0.0:\n  version "1.0.${n}"\n  integrity ${integrityHash()}\n  checksum_secret_sha: ${randomSecret(40)}\n`,
    ).join(''),
    'test/fixtures/service.json': `{ "api_key": "${randomSecret(32)}" }\n`,
    'public/app.min.js': `var e={clientSecret:"${randomSecret(32)}"};${'function a(b){return b}'.repeat(300)}\n`,
    'assets/logo.bin': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), Buffer.from(`token=${randomSecret(40)}`)]),
    'src/inline.js': `const allowed = '${checksummedToken(['gh', 'p_'].join(''))}'; // secretlint-disable-line\n`,
    'src/rotated.js': `const rotated = '${ignoredToken}';\n`,
    '.secretscanignore': `# rotated on 2024-05-01\n${sha256Hex(ignoredToken)}\n`,
  });

  const secret = await server.repository('private', { token: serverToken });
  await secret.commit('private config', { 'config.js': `module.exports = { token: '${privateToken}' };\n` });

  const big = await server.repository('big');
  await big.commit('large random data', {
    'data/blob.txt': randomFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 600_000),
  });

  const withSubmodule = await server.repository('with-submodule');
  await withSubmodule.commit('app', { 'app.js': `const key = '${planted.githubToken}';\n` });
  withSubmodule.git('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/lib`);
  withSubmodule.git('commit', '--quiet', '-m', 'vendor lib as a submodule');

  const branched = await server.repository('branched');
  await branched.commit('main', { 'README.md': '# branched\n' });
  branched.git('checkout', '--quiet', '-b', 'feature/login');
  await branched.commit('feature work', { 'src/login.js': `const key = '${featureToken}';\n` });
  branched.git('checkout', '--quiet', 'main');

  return { planted, historyOnly, sharedToken, ignoredToken, privateToken, serverToken, featureToken };
}
