/**
 * nhiscan's finding catalogue (DESIGN §20): ids and severities are fixed there; `nhiscan rules`
 * prints this and docs/findings.md is generated from it. Each rule names the OWASP Non-Human
 * Identities Top 10 (2025) entry it stands for.
 */
import type { Rule } from '../../../lib/report.ts';

export const NHI_RULE_IDS = [
  'nhi.credential.invalid',
  'nhi.exposure.leaked',
  'nhi.aws.root_key',
  'nhi.aws.key_age',
  'nhi.aws.key_unused',
  'nhi.aws.two_active_keys',
  'nhi.aws.admin_policy',
  'nhi.aws.service_wildcard',
  'nhi.aws.privilege_escalation',
  'nhi.aws.long_lived_user_key',
  'nhi.github.no_expiry',
  'nhi.github.expires_soon',
  'nhi.github.classic_pat',
  'nhi.github.privileged_scopes',
  'nhi.gitlab.privileged_scopes',
  'nhi.gitlab.admin_user',
  'nhi.gitlab.no_expiry',
  'nhi.slack.user_token',
  'nhi.slack.privileged_scopes',
] as const;

export type NhiRuleId = (typeof NHI_RULE_IDS)[number];

/** The provider families (the rule id's middle segment) and the credential kind each reviews. */
export const PROVIDER_OF_KIND = {
  aws_access_key: 'aws',
  github_token: 'github',
  gitlab_token: 'gitlab',
  slack_token: 'slack',
} as const;
export type NhiKind = keyof typeof PROVIDER_OF_KIND;
export type Provider = (typeof PROVIDER_OF_KIND)[NhiKind];

/** The rules of one provider. */
export function rulesOf(provider: Provider): NhiRuleId[] {
  return NHI_RULE_IDS.filter((id) => id.startsWith(`nhi.${provider}.`));
}

/** OWASP Non-Human Identities Top 10 (2025). */
const OWASP_NHI = 'https://owasp.org/www-project-non-human-identities-top-10/2025/';

type RuleText = Omit<Rule, 'references' | 'tags' | 'cwe' | 'confidence'> & { rule_id: NhiRuleId; nhi: string; cwe?: string };

const texts: readonly RuleText[] = [
  {
    rule_id: 'nhi.credential.invalid',
    severity: 'low',
    nhi: 'NHI1',
    title: 'Credential rejected by its provider',
    description:
      'The provider rejects the stored credential (revoked, deleted or mistyped): the vault entry is stale and the other checks are skipped.',
    remediation: 'Delete the vault entry, or rotate it to the credential in use.',
    cwe: 'CWE-324',
  },
  {
    rule_id: 'nhi.exposure.leaked',
    severity: 'critical',
    nhi: 'NHI2',
    title: 'Credential found by a secret scan',
    description:
      "The SHA-256 of the credential's primary value (for an AWS key also of its access key id) equals the hash of an open secret_scan issue of the same tenant: the secret sits in a repository.",
    remediation:
      'Revoke and rotate the credential now, then remove it from the repository history; rotating alone leaves the old value usable until revoked.',
    cwe: 'CWE-798',
  },
  {
    rule_id: 'nhi.aws.root_key',
    severity: 'critical',
    nhi: 'NHI5',
    title: 'AWS access key of the account root',
    description:
      'The caller is the account root (arn:aws:iam::<account>:root): a key that can do everything and cannot be limited by IAM policies.',
    remediation: 'Delete the root access key; use an IAM role (or a user with a least-privilege policy) for the workload.',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.aws.key_age',
    severity: 'medium',
    nhi: 'NHI7',
    title: 'AWS access key older than the rotation limit',
    description: 'The access key was created more than `max_key_age_days` ago (default 90).',
    remediation: 'Rotate the key: create a second key, move the workload to it, deactivate and delete the old one.',
    cwe: 'CWE-324',
  },
  {
    rule_id: 'nhi.aws.key_unused',
    severity: 'medium',
    nhi: 'NHI1',
    title: 'AWS access key unused',
    description:
      "The access key was not used for `max_unused_days` (default 90), not counting this scanner's own calls (a last use inside the previous nhi scan of the alias, or inside this one, is the scanner's).",
    remediation: 'Deactivate and delete a key nothing uses; an unused key is only a liability.',
    cwe: 'CWE-1258',
  },
  {
    rule_id: 'nhi.aws.two_active_keys',
    severity: 'low',
    nhi: 'NHI7',
    title: 'IAM user with two active access keys',
    description: "The key's user has two active access keys: outside a rotation, one is forgotten.",
    remediation: 'Finish the rotation: deactivate and delete the key no longer in use.',
  },
  {
    rule_id: 'nhi.aws.admin_policy',
    severity: 'critical',
    nhi: 'NHI5',
    title: 'Identity allowed every action on every resource',
    description:
      'An attached, inline or group policy of the identity has a statement allowing `*` on `*` (AdministratorAccess or its like).',
    remediation:
      'Replace the policy by one naming the actions and resources the workload needs (IAM Access Analyzer can generate it from CloudTrail).',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.aws.service_wildcard',
    severity: 'high',
    nhi: 'NHI5',
    title: 'Every action of a sensitive service allowed',
    description: 'A policy of the identity allows `<service>:*` on `*` for iam, kms, s3, sts, organizations or secretsmanager.',
    remediation: 'Name the actions and resources the workload needs instead of the whole service.',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.aws.privilege_escalation',
    severity: 'high',
    nhi: 'NHI5',
    title: 'Identity can raise its own privileges',
    description:
      'A policy of the identity allows `iam:PassRole` without a condition, or `iam:CreatePolicyVersion`, `iam:Attach*Policy`, `iam:CreateAccessKey` or `iam:UpdateLoginProfile` on `*` (wildcard actions that include them count).',
    remediation:
      'Limit iam:PassRole to named roles with an iam:PassedToService condition; grant the IAM write actions on named resources only, or not at all.',
    cwe: 'CWE-269',
  },
  {
    rule_id: 'nhi.aws.long_lived_user_key',
    severity: 'low',
    nhi: 'NHI7',
    title: 'Long-lived IAM access key',
    description:
      'The credential is a long-lived access key (AKIA…) of an IAM user or of the root, rather than temporary credentials of a role.',
    remediation: 'Run the workload under an IAM role (instance profile, IRSA, OIDC federation from CI) and delete the key.',
    cwe: 'CWE-324',
  },
  {
    rule_id: 'nhi.github.no_expiry',
    severity: 'medium',
    nhi: 'NHI7',
    title: 'GitHub token without an expiration',
    description: 'GitHub sends no `github-authentication-token-expiration` header for the token: it never expires.',
    remediation: 'Replace it by a token with an expiration (a fine-grained token, or a GitHub App installation token for automation).',
    cwe: 'CWE-324',
  },
  {
    rule_id: 'nhi.github.expires_soon',
    severity: 'low',
    nhi: 'NHI7',
    title: 'GitHub token expires soon',
    description: 'The token expires within `expiry_warning_days` (default 30).',
    remediation: 'Rotate it before it expires, or the automation using it stops.',
  },
  {
    rule_id: 'nhi.github.classic_pat',
    severity: 'low',
    nhi: 'NHI5',
    title: 'Classic GitHub personal access token',
    description: 'The token is a classic personal access token (`ghp_`): its scopes span every repository its user can reach.',
    remediation: 'Use a fine-grained token limited to the repositories and permissions needed, or a GitHub App.',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.github.privileged_scopes',
    severity: 'high',
    nhi: 'NHI5',
    title: 'GitHub token with privileged scopes',
    description: 'X-OAuth-Scopes includes admin:org, admin:enterprise, delete_repo, admin:repo_hook, workflow or site_admin.',
    remediation: 'Issue a token with the scopes the automation uses only.',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.gitlab.privileged_scopes',
    severity: 'high',
    nhi: 'NHI5',
    title: 'GitLab token with privileged scopes',
    description: "The token's scopes (personal_access_tokens/self) include api, sudo, admin_mode or write_repository.",
    remediation: 'Issue a token with read scopes, or the narrowest scope the automation uses.',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.gitlab.admin_user',
    severity: 'critical',
    nhi: 'NHI5',
    title: 'GitLab token of an administrator',
    description: "The token's user is a GitLab administrator (`is_admin`).",
    remediation: 'Give the automation a bot user or a project/group access token; never an administrator.',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.gitlab.no_expiry',
    severity: 'medium',
    nhi: 'NHI7',
    title: 'GitLab token without an expiration',
    description: 'The token has no `expires_at`.',
    remediation: 'Set an expiration (GitLab 16+ requires one for new tokens) and rotate before it.',
    cwe: 'CWE-324',
  },
  {
    rule_id: 'nhi.slack.user_token',
    severity: 'medium',
    nhi: 'NHI5',
    title: 'Slack user token used as a machine identity',
    description: 'The credential is a user token (`xoxp-`): it acts with a person’s full access and goes when that person leaves.',
    remediation: 'Use a bot token (`xoxb-`) of an app installed for the purpose.',
    cwe: 'CWE-250',
  },
  {
    rule_id: 'nhi.slack.privileged_scopes',
    severity: 'high',
    nhi: 'NHI5',
    title: 'Slack token with admin or history-reading scopes',
    description:
      'The `x-oauth-scopes` of auth.test include an admin scope (`admin`, `admin.*`) or a history-reading scope (`channels:history`, `groups:history`, `im:history`, `mpim:history`).',
    remediation: 'Reinstall the app with the scopes it uses only.',
    cwe: 'CWE-250',
  },
];

const REFERENCES: Readonly<Record<Provider | 'any', readonly string[]>> = {
  any: [OWASP_NHI],
  aws: [OWASP_NHI, 'https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html'],
  github: [
    OWASP_NHI,
    'https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens',
  ],
  gitlab: [OWASP_NHI, 'https://docs.gitlab.com/user/profile/personal_access_tokens/'],
  slack: [OWASP_NHI, 'https://api.slack.com/authentication/token-types'],
};

export const catalogue: readonly Rule[] = texts.map(({ nhi, cwe, ...text }) => {
  const family = text.rule_id.split('.')[1];
  const provider = family in REFERENCES ? (family as Provider) : 'any';
  return {
    ...text,
    tags: [`provider:${provider}`, `owasp-nhi:${nhi.toLowerCase()}`],
    references: REFERENCES[provider],
    ...(cwe ? { cwe } : {}),
    confidence: 'high' as const,
  };
});
