import { randomBytes, randomInt } from 'node:crypto';
import { checksummedToken, plantSecrets, randomFrom, randomSecret } from './planted.ts';

/**
 * A text every rule of secretlint's recommended preset reports, per rule (its short name), with
 * the path it needs (the GCP rule reads `.json`, npm's rules read `.npmrc` and `package.json`).
 * Made at test time from random bytes, prefixes split (planted.ts), so this repository holds none.
 * Several spellings per rule where the rule accepts several (prefixes, cases, formats).
 */
export interface RuleSample {
  rule: string;
  path: string;
  text: string;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;
const join = (...parts: string[]): string => parts.join('');

/** A 1Password service-account token: ops_ and the base64 of a JSON object (its rule decodes it). */
function onePasswordToken(): string {
  let json = JSON.stringify({
    email: `${randomSecret(12).toLowerCase()}@example.test`,
    secretKey: randomSecret(40),
    srpX: randomSecret(64),
  });
  while (json.length % 3 !== 1) json = json.replace('{', '{ ');
  return join('op', 's_') + Buffer.from(json).toString('base64');
}

function serviceAccountJson(privateKey: string, escapedKey: boolean): string {
  const json = JSON.stringify(
    { type: 'service_account', project_id: 'acme', private_key_id: randomSecret(40).toLowerCase(), private_key: privateKey },
    null,
    2,
  );
  // JSON may spell a key with \u escapes: the prefilter's literals must still see it.
  return escapedKey ? json.replace('"private_key_id"', '"private\\u005fkey_id"') : json;
}

/** An AWS secret access key that secretlint's `\\b`-ended pattern finds (planted.ts says why). */
function awsSecret(): string {
  return randomFrom(B64, 39) + randomFrom(ALNUM, 1);
}

export function ruleSamples(): RuleSample[] {
  const planted = plantSecrets();
  const sample = (rule: string, text: string, path = 'src/config.txt'): RuleSample => ({ rule, path, text });
  return [
    // One spelling per sample, so that each literal of the prefilter is the only one some sample has.
    sample('aws', `AWS_ACCESS_KEY_ID=${planted.awsKeyId}\n`, 'config/prod.env'),
    ...['A3T' + randomFrom(UPPER, 1), 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'ASIA'].map((prefix) =>
      sample('aws', `id: ${prefix}${randomFrom(UPPER, 20 - prefix.length)}\n`),
    ),
    sample('aws', `aws_secret_access_key = "${planted.awsSecret}"\n`, 'config/prod.env'),
    sample('aws', `"SecretAccessKey": "${awsSecret()}"\n`),
    sample('aws', `AWS_SECRET_ACCESS_KEY=${awsSecret()}\n`),
    sample('gcp', serviceAccountJson(planted.privateKey, false), 'deploy/service-account.json'),
    sample('gcp', serviceAccountJson(planted.privateKey, true), 'deploy/escaped.json'),
    sample('privatekey', `key:\n${planted.privateKey}`),
    sample('npm', `const token = '${planted.npmToken}';\n`, 'src/publish.js'),
    sample('npm', `//registry.npmjs.org/:${join('_auth', 'Token=')}${randomSecret(36)}\n`, '.npmrc'),
    sample(
      'npm',
      `{ "dependencies": { "lib": "git+https://${randomSecret(40)}:${join('x-oauth', '-basic')}@github.com/acme/lib.git" } }\n`,
      'package.json',
    ),
    sample('basicauth', `WEBHOOK = "https://deploy:${planted.urlPassword}@hooks.acme-corp.io/notify"\n`),
    sample('slack', `slack: ${planted.slackToken}\n`),
    ...['xoxp', 'xapp', 'xoxa', 'xoxo', 'xoxr'].map((prefix) =>
      sample('slack', `slack: ${prefix}-${randomInt(1e11, 1e12)}-${randomSecret(24)}\n`),
    ),
    sample('slack', `url = "https://hooks.slack.com/services/T${randomSecret(10)}/B${randomSecret(10)}/${randomSecret(24)}"\n`),
    sample('slack', `URL = "HTTPS://HOOKS.SLACK.COM/SERVICES/T${randomSecret(10)}/B${randomSecret(10)}/${randomSecret(24)}"\n`),
    sample('sendgrid', `SENDGRID=${join('S', 'G.')}${randomFrom(ALNUM, 22)}.${randomFrom(ALNUM, 43)}\n`),
    ...['shppa_', 'shpca_', 'shpat_', 'shpss_'].map((prefix) => sample('shopify', `shop: ${prefix}${randomSecret(32)}\n`)),
    sample('stripe', `STRIPE=${planted.stripeKey}\n`),
    ...['sk_test_', 'rk_live_', 'rk_test_'].map((prefix) => sample('stripe', `key = ${prefix}${randomSecret(30)}\n`)),
    sample('github', `const github = '${planted.githubToken}';\n`),
    ...['gho_', 'ghu_', 'ghs_', 'ghr_'].map((prefix) => sample('github', `token: ${checksummedToken(prefix)}\n`)),
    sample('github', `pat = ${join('github', '_pat_')}${randomFrom(`${ALNUM}_`, 82)}\n`),
    sample('github', `app = ${join('gh', 's_')}12345_${randomFrom(URLSAFE, 36)}.${randomFrom(URLSAFE, 120)}.${randomFrom(URLSAFE, 43)}\n`),
    sample('gitlab', `gitlab_token: ${planted.gitlabToken}\n`),
    sample('grafana', `a = ${join('gl', 'c_')}${randomFrom(B64, 60)}\n`),
    sample('grafana', `b = ${join('gl', 'sa_')}${randomSecret(32)}_${randomFrom(HEX, 8)}\n`),
    sample('openai', `OPENAI=${join('sk', '-proj-')}${randomFrom(URLSAFE, 74)}${join('T3Blbk', 'FJ')}${randomFrom(URLSAFE, 74)}\n`),
    sample('openai', `legacy = ${join('sk', '-')}${randomSecret(20)}${join('T3Blbk', 'FJ')}${randomSecret(20)}\n`),
    sample('anthropic', `ANTHROPIC=${join('sk-ant', '-api03-')}${randomFrom(URLSAFE, 93)}AA\n`),
    sample('groq', `GROQ=${join('gs', 'k_')}${randomSecret(52)}\n`),
    sample('huggingface', `HF=${join('h', 'f_')}${randomFrom(LETTERS, 34)}\n`),
    sample('linear', `LINEAR=${join('lin', '_api_')}${randomSecret(40)}\n`),
    sample('notion', `NOTION=${join('nt', 'n_')}${randomFrom('0123456789', 11)}${randomSecret(35)}\n`),
    sample('1password', `OP=${onePasswordToken()}\n`),
    sample('database-connection-string', `DATABASE = "postgres://app:${planted.dbPassword}@db.internal.example/app"\n`),
    sample('database-connection-string', `MONGO = "MongoDB+srv://svc:${randomSecret(18)}@cluster0.example.net/db"\n`),
    sample('database-connection-string', `url = JDBC:MYSQL://svc:${randomSecret(18)}@db.example.net:3306/app\n`),
    sample('hashicorp-vault', `VAULT=${join('hv', 's.')}${randomFrom(URLSAFE, 95)}\n`),
    sample('hashicorp-vault', `VAULT=${join('hv', 'b.')}${randomFrom(URLSAFE, 150)}\n`),
    sample('hashicorp-vault', `VAULT=${join('hv', 'r.')}${randomFrom(URLSAFE, 95)}\n`),
    ...['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'].map((prefix) => sample('vercel', `VERCEL=${prefix}${randomSecret(24)}\n`)),
    sample('databricks', `DATABRICKS=${join('da', 'pi')}${randomFrom(HEX, 32)}\n`),
    sample('docker', `DOCKER=${join('dckr', '_pat_')}${randomFrom(URLSAFE.replace('-', ''), 27)}\n`),
    sample('figma', `FIGMA=${join('fig', 'd_')}${randomFrom(URLSAFE, 45)}\n`),
    ...['cfk_', 'cfut_', 'cfat_'].map((prefix) => sample('cloudflare', `CF=${prefix}${randomSecret(40)}${randomFrom(HEX, 8)}\n`)),
    sample('tailscale', `TS=${join('tskey', '-auth-')}${randomSecret(12)}-${randomSecret(24)}\n`),
  ];
}

/** Texts that look close to a secret and are none (documentation keys, placeholders, wrong case, cut prefixes). */
export function decoyLines(): string[] {
  return [
    'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
    'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    `GHP_${randomSecret(36)}`,
    `${join('gh', 'p_')}${randomSecret(12)}`,
    // Issue 33 item 10: placeholders, and a token of the checksummed shape whose checksum fails.
    `export GITHUB_TOKEN=${join('gh', 'p_')}${'x'.repeat(36)}`,
    `GITHUB_TOKEN=${join('gh', 'p_')}${'YOURTOKENHERE'.padEnd(36, '0')}`,
    `token: ${join('gh', 'o_')}${randomSecret(36)}`,
    `${join('np', 'm_')}${'0'.repeat(36)}`,
    `${join('sk', '_live_')}short`,
    `Sk_Live_${randomSecret(30)}`,
    `${join('np', 'm')}-${randomSecret(36)}`,
    'url = https://user:password@example.com/',
    'postgres://localhost/app',
    'mysql://root:root@localhost/db',
    `${join('-----BEGIN RSA PRIVATE', ' KEY-----')}\n...\n-----END RSA PRIVATE KEY-----`,
    `xoxb ${randomSecret(20)}`,
    `{ "private_key_id": "abc", "private_key": "none" }`,
    `checksum = sha512-${randomBytes(48).toString('base64')}`,
    `DAPI${randomFrom(HEX, 32)}`,
    `HF_${randomFrom(LETTERS, 34)}`,
  ];
}

/** Code-like lines that hold no literal of any rule. */
export function fillerLines(): string[] {
  return [
    'export function handler(event) {',
    '  const result = await client.send(command);',
    '  return { statusCode: 200, body: JSON.stringify(result) };',
    '}',
    '// TODO: retry on throttling',
    'for (const item of items) total += item.length;',
    '',
  ];
}
