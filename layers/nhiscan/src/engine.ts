/**
 * nhiscan as the kit's CLI frame runs it (DESIGN §20): the target is a credential alias, the
 * credential arrives in `--credential-file` (its alias must be the target), and the runner's
 * `--config` object carries the tenant's open secret_scan hashes and the previous scan's window.
 * The secret goes only to its provider's API, whose base comes from the deployment's settings.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { CouldNotStart, type EngineDefinition } from '../../engine-kit/src/cli.ts';
import { CREDENTIAL_ALIAS } from '../../../lib/credential-kinds.ts';
import { credentialSecrets, redactSecrets, type LoadedCredential } from '../../../lib/credential.ts';
import { makeSafeFetch } from '../../../lib/http/safe-fetch.ts';
import { catalogue, NHI_RULE_IDS, PROVIDER_OF_KIND, rulesOf, type NhiKind, type Provider } from './catalogue.ts';
import { NhiContext, sha256Hex } from './context.ts';
import { makeAwsClients, OPEN_WINDOW_MS, reviewAws } from './providers/aws.ts';
import { reviewGithub } from './providers/github.ts';
import { reviewGitlab } from './providers/gitlab.ts';
import { reviewSlack } from './providers/slack.ts';
import type { ReviewContext } from './review.ts';
import { NhiScope, settingsOf } from './scope.ts';
import { NHISCAN_VERSION } from './version.ts';

/** Settings from NHISCAN_* variables (DESIGN §11): the providers' API bases and the request timeout. */
export function envSettings(env: Readonly<Record<string, string | undefined>>) {
  const timeout = Number(env.NHISCAN_REQUEST_TIMEOUT_SECONDS ?? 20);
  return {
    awsEndpoint: env.NHISCAN_AWS_ENDPOINT || undefined,
    awsRegion: env.NHISCAN_AWS_REGION || 'us-east-1',
    githubApi: env.NHISCAN_GITHUB_API || 'https://api.github.com',
    gitlabApi: env.NHISCAN_GITLAB_API || 'https://gitlab.com/api/v4',
    slackApi: env.NHISCAN_SLACK_API || 'https://slack.com/api',
    requestTimeoutMs: (Number.isFinite(timeout) ? Math.min(120, Math.max(0.1, timeout)) : 20) * 1000,
  };
}

const isNhiKind = (kind: string): kind is NhiKind => Object.hasOwn(PROVIDER_OF_KIND, kind);

/** The credential the target names, of an nhi kind: anything else stops the scan before a call. */
function credentialOf(target: string, credential: LoadedCredential | undefined): LoadedCredential & { kind: NhiKind } {
  if (!credential) throw new CouldNotStart(`the target is credential ${target}, but no --credential-file was given`);
  if (credential.alias !== target) throw new CouldNotStart(`the credential file holds ${credential.alias}, not the target ${target}`);
  if (!isNhiKind(credential.kind)) {
    throw new CouldNotStart(
      `credential ${target} is a ${credential.kind}; nhi reviews aws_access_key, github_token, gitlab_token or slack_token`,
    );
  }
  return credential as LoadedCredential & { kind: NhiKind };
}

/** The hashes a secret scan may have found of this credential: the primary value, and for AWS the key id. */
function hashesOf(credential: LoadedCredential): { what: string; sha256: string }[] {
  const secret = credential.secret as Record<string, string>;
  if (credential.kind === 'aws_access_key') {
    return [
      { what: 'secret access key', sha256: sha256Hex(secret.secret_access_key) },
      { what: 'access key id', sha256: sha256Hex(secret.access_key_id) },
    ];
  }
  return [{ what: 'token', sha256: sha256Hex(secret.token) }];
}

export function makeNhiscan(): EngineDefinition<NhiScope> {
  return {
    name: 'nhiscan',
    version: NHISCAN_VERSION,
    envPrefix: 'NHISCAN',
    targetHelp: 'the alias of a credential of kind aws_access_key, github_token, gitlab_token or slack_token, e.g. ci-deploy-key',
    catalogue: () => catalogue,
    scopeSchema: () => NhiScope,
    defaultTimeoutSeconds: 120,
    parseTarget: (raw) => (CREDENTIAL_ALIAS.test(raw) ? { ok: true, target: raw } : { ok: false, message: 'not a credential alias' }),
    scan: async ({ target, scope, config, deadline, policy, report, progress, env, now, credential: loaded }) => {
      const credential = credentialOf(target, loaded);
      const parsedContext = NhiContext.safeParse(config);
      if (!parsedContext.success) throw new CouldNotStart('the --config file is not an nhi context (leaked_sha256, previous_scan)');
      const context = parsedContext.data;
      const settings = envSettings(env);
      const provider: Provider = PROVIDER_OF_KIND[credential.kind];
      const secrets = credentialSecrets(credential);
      const startedAt = now();
      // Every check reviews the one credential as a whole: a pass resolves its issue (DESIGN §15).
      report.covered({ kind: 'target' });
      for (const other of ['aws', 'github', 'gitlab', 'slack'] as const) {
        if (other !== provider) report.skip(rulesOf(other), `the credential is a ${credential.kind}`);
      }
      progress('nhi.target', { alias: target, kind: credential.kind });
      const review: ReviewContext = {
        report,
        settings: settingsOf(scope),
        now,
        startedAt,
        ...(context.previous_scan
          ? {
              previousScan: {
                startedAt: new Date(context.previous_scan.started_at),
                finishedAt: context.previous_scan.finished_at
                  ? new Date(context.previous_scan.finished_at)
                  : new Date(new Date(context.previous_scan.started_at).getTime() + OPEN_WINDOW_MS),
              },
            }
          : {}),
        signal: deadline.signal,
        requestTimeoutMs: settings.requestTimeoutMs,
        progress,
        redact: (text) => redactSecrets(text, secrets),
      };
      const ca = env.EXTRA_CA_FILE ? [...rootCertificates, readFileSync(env.EXTRA_CA_FILE, 'utf8')] : undefined;
      const fetch = makeSafeFetch({
        timeoutMs: settings.requestTimeoutMs,
        maxBytes: 1024 * 1024,
        // The API bases are the operator's; loopback ones only under the local loopback setting.
        allowPrivate: policy.allowPrivate,
        allowLoopback: policy.allowLoopback,
        tlsCa: ca,
        maxRedirects: 0,
        userAgent: `nhiscan/${NHISCAN_VERSION}`,
      });
      const secret = credential.secret as Record<string, string>;
      let verdict: 'invalid' | 'valid' | 'unknown';
      if (credential.kind === 'aws_access_key') {
        const clients = makeAwsClients(
          { access_key_id: secret.access_key_id, secret_access_key: secret.secret_access_key },
          { endpoint: settings.awsEndpoint, region: settings.awsRegion },
          settings.requestTimeoutMs,
        );
        try {
          verdict = await reviewAws(review, { access_key_id: secret.access_key_id, secret_access_key: secret.secret_access_key }, clients);
        } finally {
          clients.iam.destroy();
          clients.sts.destroy();
        }
      } else if (credential.kind === 'github_token') verdict = await reviewGithub(review, secret.token, fetch, settings.githubApi);
      else if (credential.kind === 'gitlab_token') verdict = await reviewGitlab(review, secret.token, fetch, settings.gitlabApi);
      else verdict = await reviewSlack(review, secret.token, fetch, settings.slackApi);

      if (verdict === 'invalid') {
        report.skip('nhi.exposure.leaked', 'the provider rejects the credential (nhi.credential.invalid)');
        return;
      }
      if (context.leaked_sha256 === undefined) {
        report.skip('nhi.exposure.leaked', "no secret_scan hashes were handed to the engine (the runner's --config)");
        return;
      }
      const known = new Set(context.leaked_sha256);
      const hits = hashesOf(credential).filter((hash) => known.has(hash.sha256));
      if (hits.length > 0) {
        report.fail('nhi.exposure.leaked', {
          detail: `The credential's ${hits.map((hit) => hit.what).join(' and ')} ${hits.length === 1 ? 'is' : 'are'} the secret of an open secret_scan issue of this tenant.`,
          evidence: { provider, matched: hits.map((hit) => ({ value: hit.what, sha256: hit.sha256 })) },
          fingerprint_key: 'leaked',
          subject: 'the credential',
        });
      } else if (context.leaked_sha256_complete === false) {
        report.error(
          'nhi.exposure.leaked',
          `only ${known.size} open secret_scan hashes of the tenant were handed over (more exist): no match there`,
        );
      } else
        report.pass('nhi.exposure.leaked', `not among ${known.size} open secret_scan hash${known.size === 1 ? '' : 'es'} of the tenant`);
    },
  };
}

export const nhiscan = makeNhiscan();
export { NHI_RULE_IDS };
