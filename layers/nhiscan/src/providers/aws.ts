/**
 * The AWS review (DESIGN §20): who the key is (STS GetCallerIdentity, which needs no permission),
 * its age, last use and sibling keys, and what its user's policies allow: attached, inline and
 * through groups. Read-only calls only (Get*, List*), signed by the AWS SDK v3 clients against
 * NHISCAN_AWS_ENDPOINT or AWS's own endpoints. A call the key may not make is an `error`.
 */
import {
  GetAccessKeyLastUsedCommand,
  GetGroupPolicyCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetUserPolicyCommand,
  IAMClient,
  ListAccessKeysCommand,
  ListAttachedGroupPoliciesCommand,
  ListAttachedUserPoliciesCommand,
  ListGroupPoliciesCommand,
  ListGroupsForUserCommand,
  ListUserPoliciesCommand,
} from '@aws-sdk/client-iam';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mapBounded } from '../../../../lib/concurrency.ts';
import type { AwsAccessKeySecret } from '../../../../lib/credential.ts';
import { rulesOf, type NhiRuleId } from '../catalogue.ts';
import {
  CredentialRejected,
  DAY_MS,
  days,
  errorChecks,
  firstCallFailed,
  isoDay,
  ProviderError,
  SelfInspectionDenied,
  type ReviewContext,
} from '../review.ts';
import { judgePolicy, parsePolicyDocument } from './aws-policy.ts';

const MAX_GROUPS = 100;
const MAX_POLICIES = 250;
const MAX_PAGES = 20;
/** How long a previous scan's window lasts when it never recorded its end (the long class's deadline). */
const OPEN_WINDOW_MS = 15 * 60_000;

export interface AwsEndpoint {
  /** NHISCAN_AWS_ENDPOINT: one base for IAM and STS (moto, a proxy); AWS's own endpoints when absent. */
  endpoint?: string;
  region: string;
}

const INVALID = new Set([
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'UnrecognizedClientException',
  'InvalidAccessKeyId',
  'AuthFailure',
]);
const DENIED = new Set(['AccessDenied', 'AccessDeniedException', 'UnauthorizedOperation']);

/** An SDK failure in words: rejected, denied, or a provider error (throttling, 5xx, garbage, timeout). */
function classify(error: unknown, call: string): Error {
  const failure = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = failure.name ?? 'Error';
  const status = failure.$metadata?.httpStatusCode;
  if (INVALID.has(name)) return new CredentialRejected(`AWS rejected the key (${name})`);
  if (DENIED.has(name)) return new SelfInspectionDenied(`${call} denied by AWS (${name})`);
  if (/throttl|rate exceeded|too ?many ?requests/i.test(`${name} ${failure.message ?? ''}`) || status === 429) {
    return new ProviderError(`${call}: AWS throttled the call (${name}); not judged`);
  }
  if (name === 'TimeoutError' || name === 'AbortError' || /timed? ?out/i.test(failure.message ?? '')) {
    return new ProviderError(`${call}: no answer in time`);
  }
  const where = status ? ` (HTTP ${status})` : '';
  return new ProviderError(`${call} failed: ${name}${where}: ${(failure.message ?? '').slice(0, 200)}`);
}

export function makeAwsClients(secret: AwsAccessKeySecret, where: AwsEndpoint, requestTimeoutMs: number) {
  const config = {
    region: where.region,
    ...(where.endpoint ? { endpoint: where.endpoint } : {}),
    credentials: { accessKeyId: secret.access_key_id, secretAccessKey: secret.secret_access_key },
    // One retry: the SDK's own backoff on throttling, bounded, then an error check.
    maxAttempts: 2,
    requestHandler: { connectionTimeout: requestTimeoutMs, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true },
  };
  return { sts: new STSClient(config), iam: new IAMClient(config) };
}

type Clients = ReturnType<typeof makeAwsClients>;

interface PolicySource {
  /** How the fingerprint and the finding name it: `managed:<arn>`, `inline:user/<name>`, `inline:group/<group>/<name>`. */
  id: string;
  name: string;
  attachment: 'attached to the user' | 'inline in the user' | `attached to group ${string}` | `inline in group ${string}`;
  document: string;
}

export async function reviewAws(
  context: ReviewContext,
  secret: AwsAccessKeySecret,
  clients: Clients,
): Promise<'invalid' | 'valid' | 'unknown'> {
  const { report, signal } = context;
  const send = async <T>(
    client: { send: (command: never, options: { abortSignal: AbortSignal }) => Promise<T> },
    command: unknown,
    call: string,
  ): Promise<T> => {
    try {
      // The SDK's own socket timeout does not always fire on a server that accepts and never
      // answers: each call also has a deadline of its own (both attempts), on top of the scan's.
      return await client.send(command as never, {
        abortSignal: AbortSignal.any([signal, AbortSignal.timeout(context.requestTimeoutMs * 2)]),
      });
    } catch (error) {
      throw classify(error, call);
    }
  };
  const aws = rulesOf('aws');
  let identity: { Arn?: string; Account?: string };
  try {
    identity = await send(clients.sts as never, new GetCallerIdentityCommand({}), 'sts:GetCallerIdentity');
  } catch (error) {
    return firstCallFailed(context, aws, error, {
      why: 'the vault entry is stale.',
      evidence: { provider: 'aws', access_key_id: maskKeyId(secret.access_key_id) },
    });
  }
  const arn = identity.Arn ?? '';
  if (!arn.startsWith('arn:')) {
    errorChecks(context, ['nhi.credential.invalid', ...aws], new ProviderError('sts:GetCallerIdentity answered without an ARN'));
    return 'unknown';
  }
  report.pass('nhi.credential.invalid', `AWS accepts the key: ${arn}`);
  context.progress('aws.identity', { arn });
  const root = /^arn:aws[a-z-]*:iam::\d+:root$/.test(arn);
  const user = /^arn:aws[a-z-]*:iam::\d+:user\/(?:.*\/)?([^/]+)$/.exec(arn)?.[1];
  const subject = root ? 'the account root' : user ? `IAM user ${user}` : arn;
  const evidenceBase = { arn, account: identity.Account, access_key_id: maskKeyId(secret.access_key_id) };

  if (root) {
    report.fail('nhi.aws.root_key', {
      detail: `The key belongs to the account root of ${identity.Account}.`,
      evidence: evidenceBase,
      fingerprint_key: 'root',
      subject,
    });
  } else report.pass('nhi.aws.root_key', `the caller is ${arn}`);

  if (secret.access_key_id.startsWith('AKIA')) {
    report.fail('nhi.aws.long_lived_user_key', {
      detail: `${maskKeyId(secret.access_key_id)} is a long-lived access key of ${subject}, not temporary credentials of a role.`,
      evidence: evidenceBase,
      fingerprint_key: 'long_lived',
      subject,
    });
  } else report.pass('nhi.aws.long_lived_user_key', 'not an AKIA long-lived key');

  if (!root && !user) {
    report.skip(
      [
        'nhi.aws.key_age',
        'nhi.aws.key_unused',
        'nhi.aws.two_active_keys',
        'nhi.aws.admin_policy',
        'nhi.aws.service_wildcard',
        'nhi.aws.privilege_escalation',
      ],
      `the caller ${arn} is neither an IAM user nor the root`,
    );
    return 'valid';
  }

  const keysTask = listKeys(send, clients, user).then(
    (keys) => ({ ok: true as const, keys }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const lastUsedTask = send<{ AccessKeyLastUsed?: { LastUsedDate?: Date } }>(
    clients.iam as never,
    new GetAccessKeyLastUsedCommand({ AccessKeyId: secret.access_key_id }),
    'iam:GetAccessKeyLastUsed',
  ).then(
    (answer) => ({ ok: true as const, lastUsed: answer.AccessKeyLastUsed?.LastUsedDate }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const policiesTask = root
    ? undefined
    : gatherPolicies(send, clients, user!).then(
        (sources) => ({ ok: true as const, sources }),
        (error: unknown) => ({ ok: false as const, error }),
      );
  const [keys, lastUsed, policies] = await Promise.all([keysTask, lastUsedTask, policiesTask]);

  const now = context.now();
  let createdAt: Date | undefined;
  if (keys.ok) {
    const own = keys.keys.find((key) => key.AccessKeyId === secret.access_key_id);
    createdAt = own?.CreateDate;
    if (!own || !createdAt) {
      report.error(['nhi.aws.key_age'], `iam:ListAccessKeys for ${subject} does not list the key itself`);
    } else {
      const age = days(now.getTime() - createdAt.getTime());
      if (age > context.settings.maxKeyAgeDays) {
        report.fail('nhi.aws.key_age', {
          detail: `The key was created on ${isoDay(createdAt)}, ${age} days ago (limit ${context.settings.maxKeyAgeDays}).`,
          evidence: {
            ...evidenceBase,
            created_at: createdAt.toISOString(),
            age_days: age,
            max_key_age_days: context.settings.maxKeyAgeDays,
          },
          fingerprint_key: 'key_age',
          subject,
        });
      } else report.pass('nhi.aws.key_age', `created ${isoDay(createdAt)}, ${age} days ago`);
    }
    const active = keys.keys.filter((key) => key.Status === 'Active');
    if (active.length >= 2) {
      report.fail('nhi.aws.two_active_keys', {
        detail: `${subject} has ${active.length} active access keys.`,
        evidence: { ...evidenceBase, active_keys: active.map((key) => maskKeyId(key.AccessKeyId ?? '')) },
        fingerprint_key: 'two_active_keys',
        subject,
      });
    } else report.pass('nhi.aws.two_active_keys', `${active.length} active key`);
  } else errorChecks(context, ['nhi.aws.key_age', 'nhi.aws.two_active_keys'], keys.error);

  if (!lastUsed.ok) errorChecks(context, ['nhi.aws.key_unused'], lastUsed.error);
  else judgeUnused(context, { lastUsed: lastUsed.lastUsed, createdAt, createdKnown: keys.ok, evidenceBase, subject });

  const policyRules: NhiRuleId[] = ['nhi.aws.admin_policy', 'nhi.aws.service_wildcard', 'nhi.aws.privilege_escalation'];
  if (!policies) report.skip(policyRules, 'the account root is not governed by IAM policies: it may do everything (nhi.aws.root_key)');
  else if (!policies.ok) errorChecks(context, policyRules, policies.error);
  else judgePolicies(context, policies.sources, { evidenceBase, subject });
  return 'valid';
}

function maskKeyId(id: string): string {
  return id.length > 8 ? `${id.slice(0, 4)}…${id.slice(-4)}` : '…';
}

type Send = <T>(client: never, command: unknown, call: string) => Promise<T>;

async function listKeys(send: Send, clients: Clients, user: string | undefined) {
  const keys: { AccessKeyId?: string; Status?: string; CreateDate?: Date }[] = [];
  let marker: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await send<{ AccessKeyMetadata?: typeof keys; IsTruncated?: boolean; Marker?: string }>(
      clients.iam as never,
      new ListAccessKeysCommand({ ...(user ? { UserName: user } : {}), Marker: marker }),
      'iam:ListAccessKeys',
    );
    keys.push(...(answer.AccessKeyMetadata ?? []));
    if (!answer.IsTruncated || !answer.Marker) return keys;
    marker = answer.Marker;
  }
  throw new ProviderError('iam:ListAccessKeys kept paging');
}

/** Every page of a List call, bounded by `max` items. */
async function allPages<T>(
  fetchPage: (marker?: string) => Promise<{ items: T[]; truncated?: boolean; marker?: string }>,
  max: number,
  what: string,
): Promise<T[]> {
  const items: T[] = [];
  let marker: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await fetchPage(marker);
    items.push(...answer.items);
    if (items.length > max) throw new ProviderError(`${what}: more than ${max}; not judged on a part`);
    if (!answer.truncated || !answer.marker) return items;
    marker = answer.marker;
  }
  throw new ProviderError(`${what} kept paging`);
}

async function gatherPolicies(send: Send, clients: Clients, user: string): Promise<PolicySource[]> {
  const iam = clients.iam as never;
  const attached = await allPages(
    async (Marker) => {
      const answer = await send<{
        AttachedPolicies?: { PolicyArn?: string; PolicyName?: string }[];
        IsTruncated?: boolean;
        Marker?: string;
      }>(iam, new ListAttachedUserPoliciesCommand({ UserName: user, Marker }), 'iam:ListAttachedUserPolicies');
      return { items: answer.AttachedPolicies ?? [], truncated: answer.IsTruncated, marker: answer.Marker };
    },
    MAX_POLICIES,
    'attached policies',
  );
  const inline = await allPages(
    async (Marker) => {
      const answer = await send<{ PolicyNames?: string[]; IsTruncated?: boolean; Marker?: string }>(
        iam,
        new ListUserPoliciesCommand({ UserName: user, Marker }),
        'iam:ListUserPolicies',
      );
      return { items: answer.PolicyNames ?? [], truncated: answer.IsTruncated, marker: answer.Marker };
    },
    MAX_POLICIES,
    'inline policies',
  );
  const groups = await allPages(
    async (Marker) => {
      const answer = await send<{ Groups?: { GroupName?: string }[]; IsTruncated?: boolean; Marker?: string }>(
        iam,
        new ListGroupsForUserCommand({ UserName: user, Marker }),
        'iam:ListGroupsForUser',
      );
      return { items: (answer.Groups ?? []).map((group) => group.GroupName ?? ''), truncated: answer.IsTruncated, marker: answer.Marker };
    },
    MAX_GROUPS,
    'groups',
  );
  type Pending =
    | { kind: 'managed'; arn: string; name: string; attachment: PolicySource['attachment'] }
    | { kind: 'user-inline'; name: string }
    | { kind: 'group-inline'; group: string; name: string };
  const pending: Pending[] = [
    ...attached.map((policy): Pending => ({
      kind: 'managed',
      arn: policy.PolicyArn ?? '',
      name: policy.PolicyName ?? '',
      attachment: 'attached to the user',
    })),
    ...inline.map((name): Pending => ({ kind: 'user-inline', name })),
  ];
  const perGroup = await mapBounded(
    groups,
    4,
    async (group) => {
      const groupAttached = await allPages(
        async (Marker) => {
          const answer = await send<{
            AttachedPolicies?: { PolicyArn?: string; PolicyName?: string }[];
            IsTruncated?: boolean;
            Marker?: string;
          }>(iam, new ListAttachedGroupPoliciesCommand({ GroupName: group, Marker }), 'iam:ListAttachedGroupPolicies');
          return { items: answer.AttachedPolicies ?? [], truncated: answer.IsTruncated, marker: answer.Marker };
        },
        MAX_POLICIES,
        `policies attached to group ${group}`,
      );
      const groupInline = await allPages(
        async (Marker) => {
          const answer = await send<{ PolicyNames?: string[]; IsTruncated?: boolean; Marker?: string }>(
            iam,
            new ListGroupPoliciesCommand({ GroupName: group, Marker }),
            'iam:ListGroupPolicies',
          );
          return { items: answer.PolicyNames ?? [], truncated: answer.IsTruncated, marker: answer.Marker };
        },
        MAX_POLICIES,
        `inline policies of group ${group}`,
      );
      return [
        ...groupAttached.map((policy): Pending => ({
          kind: 'managed',
          arn: policy.PolicyArn ?? '',
          name: policy.PolicyName ?? '',
          attachment: `attached to group ${group}`,
        })),
        ...groupInline.map((name): Pending => ({ kind: 'group-inline', group, name })),
      ];
    },
    { signal: undefined },
  );
  pending.push(...perGroup.flat());
  if (pending.length > MAX_POLICIES)
    throw new ProviderError(`${pending.length} policies apply; more than ${MAX_POLICIES} are not judged on a part`);
  return mapBounded(pending, 6, async (item): Promise<PolicySource> => {
    if (item.kind === 'user-inline') {
      const answer = await send<{ PolicyDocument?: string }>(
        iam,
        new GetUserPolicyCommand({ UserName: user, PolicyName: item.name }),
        'iam:GetUserPolicy',
      );
      return { id: `inline:user/${item.name}`, name: item.name, attachment: 'inline in the user', document: answer.PolicyDocument ?? '' };
    }
    if (item.kind === 'group-inline') {
      const answer = await send<{ PolicyDocument?: string }>(
        iam,
        new GetGroupPolicyCommand({ GroupName: item.group, PolicyName: item.name }),
        'iam:GetGroupPolicy',
      );
      return {
        id: `inline:group/${item.group}/${item.name}`,
        name: item.name,
        attachment: `inline in group ${item.group}`,
        document: answer.PolicyDocument ?? '',
      };
    }
    const policy = await send<{ Policy?: { DefaultVersionId?: string } }>(
      iam,
      new GetPolicyCommand({ PolicyArn: item.arn }),
      'iam:GetPolicy',
    );
    const version = policy.Policy?.DefaultVersionId;
    if (!version) throw new ProviderError(`iam:GetPolicy ${item.arn} answered without a default version`);
    const answer = await send<{ PolicyVersion?: { Document?: string } }>(
      iam,
      new GetPolicyVersionCommand({ PolicyArn: item.arn, VersionId: version }),
      'iam:GetPolicyVersion',
    );
    return { id: `managed:${item.arn}`, name: item.name, attachment: item.attachment, document: answer.PolicyVersion?.Document ?? '' };
  });
}

function judgePolicies(
  context: ReviewContext,
  sources: readonly PolicySource[],
  { evidenceBase, subject }: { evidenceBase: Record<string, unknown>; subject: string },
): void {
  const { report } = context;
  const rules = ['nhi.aws.admin_policy', 'nhi.aws.service_wildcard', 'nhi.aws.privilege_escalation'] as const;
  const unreadable: string[] = [];
  const fired = new Set<string>();
  for (const source of sources) {
    const parsed = parsePolicyDocument(source.document);
    if (!parsed.ok) {
      unreadable.push(`${source.name} (${source.attachment}): ${parsed.message}`);
      continue;
    }
    const verdict = judgePolicy(parsed.statements);
    const policy = { policy: source.name, policy_id: source.id, attachment: source.attachment };
    const where = `${subject}, policy ${source.name} ${source.attachment}`;
    if (verdict.admin.length > 0) {
      fired.add('nhi.aws.admin_policy');
      report.fail('nhi.aws.admin_policy', {
        detail: `Policy ${source.name} (${source.attachment}) allows * on * (statement ${verdict.admin.join(', ')}).`,
        evidence: { ...evidenceBase, ...policy, statements: verdict.admin },
        fingerprint_key: source.id,
        subject: where,
      });
    }
    if (verdict.serviceWildcards.length > 0) {
      fired.add('nhi.aws.service_wildcard');
      report.fail('nhi.aws.service_wildcard', {
        detail: `Policy ${source.name} (${source.attachment}) allows every action of ${verdict.serviceWildcards.map((item) => item.service).join(', ')} on *.`,
        evidence: { ...evidenceBase, ...policy, services: verdict.serviceWildcards },
        fingerprint_key: source.id,
        subject: where,
      });
    }
    if (verdict.escalation.length > 0) {
      fired.add('nhi.aws.privilege_escalation');
      report.fail('nhi.aws.privilege_escalation', {
        detail: `Policy ${source.name} (${source.attachment}) allows ${verdict.escalation.map((item) => item.action).join(', ')}${
          verdict.escalation.some((item) => item.action === 'iam:PassRole') ? ' (iam:PassRole without a condition)' : ' on *'
        }.`,
        evidence: { ...evidenceBase, ...policy, actions: verdict.escalation },
        fingerprint_key: source.id,
        subject: where,
      });
    }
  }
  for (const rule of rules) {
    if (unreadable.length > 0) report.error(rule, context.redact(`policies not judged: ${unreadable.join('; ')}`.slice(0, 1000)));
    else if (!fired.has(rule))
      report.pass(rule, `${sources.length} polic${sources.length === 1 ? 'y' : 'ies'} read (attached, inline and through groups)`);
  }
}

function judgeUnused(
  context: ReviewContext,
  facts: { lastUsed?: Date; createdAt?: Date; createdKnown: boolean; evidenceBase: Record<string, unknown>; subject: string },
): void {
  const { report, settings } = context;
  const now = context.now();
  const { lastUsed, createdAt, evidenceBase, subject } = facts;
  const limit = settings.maxUnusedDays;
  if (createdAt && now.getTime() - createdAt.getTime() < settings.newKeyGraceDays * DAY_MS) {
    report.pass('nhi.aws.key_unused', `the key is younger than ${settings.newKeyGraceDays} days (new_key_grace_days)`);
    return;
  }
  const windows = [
    { start: context.startedAt, end: new Date(8.64e15), what: 'this scan' },
    ...(context.previousScan
      ? [{ start: context.previousScan.startedAt, end: context.previousScan.finishedAt, what: 'the previous nhi scan' }]
      : []),
  ];
  const own = lastUsed ? windows.find((window) => lastUsed >= window.start && lastUsed <= window.end) : undefined;
  // The newest use not the scanner's: AWS keeps one timestamp, so under the scanner's own use the
  // last other use is only known to be older than that window's start.
  const since = own ? own.start : (lastUsed ?? createdAt);
  if (!since) {
    report.error('nhi.aws.key_unused', 'the key was never used and its creation date could not be read');
    return;
  }
  const idle = days(now.getTime() - since.getTime());
  const fire = () =>
    report.fail('nhi.aws.key_unused', {
      detail: lastUsed
        ? own
          ? `No use but the scanner's own (${own.what}) since before ${isoDay(since)}: at least ${idle} days (limit ${limit}).`
          : `Last used on ${isoDay(lastUsed)}, ${idle} days ago (limit ${limit}).`
        : `Never used since it was created on ${isoDay(since)}, ${idle} days ago (limit ${limit}).`,
      evidence: {
        ...evidenceBase,
        last_used_at: lastUsed?.toISOString() ?? null,
        scanner_use: own?.what ?? null,
        unused_days: idle,
        max_unused_days: limit,
      },
      fingerprint_key: 'key_unused',
      subject,
    });
  if (idle >= limit) fire();
  else if (own) {
    report.skip(
      'nhi.aws.key_unused',
      `the last recorded use (${lastUsed!.toISOString()}) is ${own.what}'s own call; AWS keeps only the newest use, so an earlier one cannot be dated`,
    );
  } else
    report.pass(
      'nhi.aws.key_unused',
      lastUsed ? `last used ${isoDay(lastUsed)}, ${idle} days ago` : `created ${isoDay(since)}, ${idle} days ago, never used`,
    );
}

export { OPEN_WINDOW_MS };
