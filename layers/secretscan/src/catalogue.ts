/**
 * The finding catalogue of secretscan (DESIGN §13) as data: one rule per kind of secret, named
 * after the secretlint rule that finds it, plus the entropy rule for generic assignments.
 * `secretscan rules` prints it; docs/secretscan.md explains it.
 */
import type { Rule } from '../../../lib/report.ts';
import type { Severity } from '../../../lib/severity.ts';

const ROTATE =
  'Revoke or rotate the credential at its issuer now (removing it from the repository does not: it stays in clones and history), then remove it from the code and load it from a secret store.';

const SECRETS_MANAGEMENT = 'https://cheatsheetseries.owasp.org/cheatsheets/Secrets_Management_Cheat_Sheet.html';

/**
 * A rule with its metadata (DESIGN §11 'Rule metadata'): a hard-coded credential (CWE-798; a
 * private key CWE-321), found by the secret's own format, so `high` confidence; the entropy rule
 * is the heuristic one.
 */
function rule(ruleId: string, severity: Severity, title: string, description: string, remediation = ROTATE): Rule {
  const key = ruleId === 'private_key';
  const heuristic = ruleId === 'generic_high_entropy';
  const cwe = key ? 321 : 798;
  return {
    rule_id: `secret.${ruleId}`,
    severity,
    title,
    description,
    remediation,
    tags: ['secret', heuristic ? 'entropy' : key ? 'key' : 'credential'],
    references: [SECRETS_MANAGEMENT, `https://cwe.mitre.org/data/definitions/${cwe}.html`],
    cwe: `CWE-${cwe}`,
    confidence: heuristic ? 'medium' : 'high',
  };
}

export const CATALOGUE: readonly Rule[] = [
  rule('aws_access_key', 'critical', 'AWS secret access key', 'An AWS secret access key assigned to an aws_secret_access_key-like name.'),
  rule(
    'aws_access_key_id',
    'high',
    'AWS access key ID',
    'An AWS access key ID (AKIA…, ASIA…): it names a key whose secret is often nearby.',
  ),
  rule(
    'gcp_service_account',
    'critical',
    'GCP service account key',
    'A Google Cloud service account key file (JSON with a private key, or PKCS#12).',
  ),
  rule('private_key', 'critical', 'Private key', 'A PEM private key (RSA, EC, DSA, OpenSSH, PGP, PKCS#8).'),
  rule('npm_token', 'high', 'npm token', 'An npm access token, or an authToken in .npmrc or package.json.'),
  rule('basic_auth_url', 'high', 'Password in a URL', 'A URL with a user and password (https://user:password@host).'),
  rule('slack_token', 'high', 'Slack token or webhook', 'A Slack token (xox…) or incoming-webhook URL.'),
  rule('sendgrid_key', 'high', 'SendGrid API key', 'A SendGrid API key (SG.…).'),
  rule('shopify_token', 'high', 'Shopify token', 'A Shopify access token or shared secret.'),
  rule('stripe_key', 'high', 'Stripe secret key', 'A Stripe secret or restricted key (live or test mode; evidence says which).'),
  rule(
    'github_token',
    'high',
    'GitHub token',
    'A GitHub personal, OAuth, app or refresh token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_).',
  ),
  rule('gitlab_token', 'high', 'GitLab token', 'A GitLab personal access token (glpat-…).'),
  rule('grafana_token', 'high', 'Grafana token', 'A Grafana Cloud API token or service account token.'),
  rule('openai_key', 'high', 'OpenAI API key', 'An OpenAI API key.'),
  rule('anthropic_key', 'high', 'Anthropic API key', 'An Anthropic API key.'),
  rule('groq_key', 'high', 'Groq API key', 'A Groq API key.'),
  rule('huggingface_token', 'high', 'Hugging Face token', 'A Hugging Face user access token.'),
  rule('linear_token', 'high', 'Linear API key', 'A Linear API key.'),
  rule('notion_token', 'high', 'Notion token', 'A Notion integration token.'),
  rule('onepassword_token', 'high', '1Password service account token', 'A 1Password service account token.'),
  rule(
    'database_connection_string',
    'high',
    'Database password in a connection string',
    'A MongoDB, MySQL or PostgreSQL connection string with a password.',
  ),
  rule('vault_token', 'high', 'HashiCorp Vault token', 'A HashiCorp Vault service, batch or recovery token.'),
  rule('vercel_token', 'high', 'Vercel token', 'A Vercel access, integration or AI gateway token.'),
  rule('databricks_token', 'high', 'Databricks token', 'A Databricks personal access token.'),
  rule('docker_token', 'high', 'Docker Hub token', 'A Docker Hub personal access token.'),
  rule('figma_token', 'high', 'Figma token', 'A Figma personal access token.'),
  rule('cloudflare_token', 'high', 'Cloudflare API key or token', 'A Cloudflare global API key or API token.'),
  rule('tailscale_key', 'high', 'Tailscale key', 'A Tailscale API, auth, client, SCIM or webhook key.'),
  rule(
    'generic_high_entropy',
    'medium',
    'High-entropy value assigned to a secret-like name',
    'A long random-looking value assigned to a name such as password, secret, token or api_key, outside test fixtures, lock files and minified bundles.',
    'If it is a credential, rotate it and load it from a secret store; if it is not, add its fingerprint to .secretscanignore.',
  ),
];

export const RULE_IDS: readonly string[] = CATALOGUE.map((entry) => entry.rule_id);

/**
 * secretlint rule id → our rule id; the AWS rule's messages split by messageId. `null` drops a
 * message: an AWS account id identifies an account and grants nothing.
 */
const BY_SECRETLINT_RULE: Readonly<Record<string, string>> = {
  aws: 'secret.aws_access_key',
  gcp: 'secret.gcp_service_account',
  privatekey: 'secret.private_key',
  npm: 'secret.npm_token',
  basicauth: 'secret.basic_auth_url',
  slack: 'secret.slack_token',
  sendgrid: 'secret.sendgrid_key',
  shopify: 'secret.shopify_token',
  stripe: 'secret.stripe_key',
  github: 'secret.github_token',
  gitlab: 'secret.gitlab_token',
  grafana: 'secret.grafana_token',
  openai: 'secret.openai_key',
  anthropic: 'secret.anthropic_key',
  groq: 'secret.groq_key',
  huggingface: 'secret.huggingface_token',
  linear: 'secret.linear_token',
  notion: 'secret.notion_token',
  '1password': 'secret.onepassword_token',
  'database-connection-string': 'secret.database_connection_string',
  'hashicorp-vault': 'secret.vault_token',
  vercel: 'secret.vercel_token',
  databricks: 'secret.databricks_token',
  docker: 'secret.docker_token',
  figma: 'secret.figma_token',
  cloudflare: 'secret.cloudflare_token',
  tailscale: 'secret.tailscale_key',
};

const BY_MESSAGE_ID: Readonly<Record<string, string | null>> = {
  AWSAccessKeyID: 'secret.aws_access_key_id',
  AWSAccountID: null,
};

const PREFIX = '@secretlint/secretlint-rule-';

/** Our rule id for a secretlint message; null for a message that is not a secret; undefined for an unknown rule. */
export function ruleIdFor(secretlintRuleId: string, messageId: string | undefined): string | null | undefined {
  if (messageId !== undefined && messageId in BY_MESSAGE_ID) return BY_MESSAGE_ID[messageId];
  return BY_SECRETLINT_RULE[secretlintRuleId.startsWith(PREFIX) ? secretlintRuleId.slice(PREFIX.length) : secretlintRuleId];
}

/** The secretlint rules this catalogue maps (the preset's, less its comment filter). */
export const MAPPED_SECRETLINT_RULES: readonly string[] = Object.keys(BY_SECRETLINT_RULE).map((name) => PREFIX + name);
