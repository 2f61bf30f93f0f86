/**
 * The AWS review against moto_server with IAM enforcement on (moto checks each signature and
 * evaluates the caller's policies, DESIGN §7): each AWS rule fired by one user and not by another.
 * moto cannot backdate a key, so the rows about age and disuse run the engine's clock ahead.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutUserPolicyCommand } from '@aws-sdk/client-iam';
import { startMotoServer, type MotoServer } from '../../../test/helpers/moto-server.ts';
import type { EngineReport } from '../../../lib/report.ts';
import { rulesOf } from '../src/catalogue.ts';
import { allow, awsAccountOn, policy, SELF_READ, type AccessKey, type AwsAccount } from './helpers/aws-account.ts';
import { detailOf, runNhiscan, statuses } from './helpers/run-scan.ts';

const AWS_RULES = ['nhi.credential.invalid', ...rulesOf('aws')];
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface Row {
  name: string;
  user: string;
  aheadDays?: number;
  scope?: Record<string, unknown>;
  config?: (key: AccessKey, moto: { now: number }) => Record<string, unknown>;
  /** The AWS rules (and nhi.credential.invalid) that fail; every other one of them must pass. */
  fails: string[];
  /** Rules expected neither pass nor fail, with their status. */
  others?: Record<string, 'error' | 'skipped'>;
}

const rows: Row[] = [
  { name: 'a reader with its own key only', user: 'reader', fails: ['nhi.aws.long_lived_user_key'] },
  {
    name: 'a key 200 days old, used since',
    user: 'reader',
    aheadDays: 200,
    scope: { max_unused_days: 365 },
    fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.key_age'],
  },
  {
    name: 'a key 100 days unused (age limit 120)',
    user: 'reader',
    aheadDays: 100,
    scope: { max_key_age_days: 120 },
    fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.key_unused'],
  },
  {
    name: 'a key whose only use since is the previous nhi scan, long ago',
    user: 'reader',
    aheadDays: 100,
    scope: { max_key_age_days: 120 },
    config: (_key, { now }) => ({
      previous_scan: { started_at: new Date(now - 60_000).toISOString(), finished_at: new Date(now + 60_000).toISOString() },
    }),
    fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.key_unused'],
  },
  {
    name: "a key whose last use is this scan's own call",
    user: 'reader',
    scope: { new_key_grace_days: 0 },
    fails: ['nhi.aws.long_lived_user_key'],
    others: { 'nhi.aws.key_unused': 'skipped' },
  },
  { name: 'a user with two active keys', user: 'two-keys', fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.two_active_keys'] },
  {
    name: 'an admin through an attached managed policy',
    user: 'admin',
    fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.admin_policy', 'nhi.aws.service_wildcard', 'nhi.aws.privilege_escalation'],
  },
  {
    name: 'sensitive wildcards through a group (inline and attached)',
    user: 'grouped',
    fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.service_wildcard'],
  },
  { name: 'iam:PassRole without a condition', user: 'passrole', fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.privilege_escalation'] },
  { name: 'iam:PassRole with a condition, on one role', user: 'passrole-conditioned', fails: ['nhi.aws.long_lived_user_key'] },
  { name: 'iam:Attach*Policy on *', user: 'attacher', fails: ['nhi.aws.long_lived_user_key', 'nhi.aws.privilege_escalation'] },
  {
    name: 'the secret is an open secret_scan issue',
    user: 'reader',
    config: (key) => ({ leaked_sha256: [sha256(key.secret_access_key)] }),
    fails: ['nhi.aws.long_lived_user_key', 'nhi.exposure.leaked'],
  },
  {
    name: 'the access key id is an open secret_scan issue',
    user: 'reader',
    config: (key) => ({ leaked_sha256: [sha256('0'), sha256(key.access_key_id)] }),
    fails: ['nhi.aws.long_lived_user_key', 'nhi.exposure.leaked'],
  },
  {
    name: 'other secrets are open secret_scan issues',
    user: 'reader',
    config: () => ({ leaked_sha256: [sha256('something else')] }),
    fails: ['nhi.aws.long_lived_user_key'],
  },
];

describe('nhiscan on moto with IAM enforcement', () => {
  let moto: MotoServer;
  let account: AwsAccount;
  const keys = new Map<string, AccessKey>();

  beforeAll(async () => {
    moto = await startMotoServer();
    account = await awsAccountOn(moto);
    const read = { read: SELF_READ };
    keys.set('reader', await account.createUser('reader', { inline: read }));
    keys.set('two-keys', await account.createUser('two-keys', { inline: read }));
    await account.createKey('two-keys');
    const all = await account.createPolicy('everything', policy(allow('*')));
    keys.set('admin', await account.createUser('admin', { attached: [all] }));
    const kms = await account.createPolicy('kms-all', policy(allow('kms:*')));
    await account.createGroup('storage', { inline: { s3: policy(allow('s3:*')) }, attached: [kms] });
    keys.set('grouped', await account.createUser('grouped', { inline: read, groups: ['storage'] }));
    keys.set(
      'passrole',
      await account.createUser('passrole', {
        inline: { ...read, pass: policy(allow('iam:PassRole', 'arn:aws:iam::123456789012:role/app')) },
      }),
    );
    keys.set(
      'passrole-conditioned',
      await account.createUser('passrole-conditioned', {
        inline: {
          ...read,
          pass: policy(
            allow('iam:PassRole', 'arn:aws:iam::123456789012:role/app', {
              Condition: { StringEquals: { 'iam:PassedToService': 'lambda.amazonaws.com' } },
            }),
          ),
        },
      }),
    );
    keys.set('attacher', await account.createUser('attacher', { inline: { ...read, attach: policy(allow('iam:Attach*Policy')) } }));
    keys.set('no-read', await account.createUser('no-read'));
  }, 60_000);
  afterAll(async () => {
    account?.iam.destroy();
    await moto?.close();
  });

  const scan = (key: AccessKey, options: Partial<Parameters<typeof runNhiscan>[0]> = {}) =>
    runNhiscan({
      credential: { alias: 'ci-key', kind: 'aws_access_key', secret: key, allowed_hosts: [] },
      env: { NHISCAN_AWS_ENDPOINT: moto.endpoint },
      config: { leaked_sha256: [] },
      ...options,
    });

  const seen = new Map<string, Set<string>>();
  const record = (report: EngineReport) => {
    for (const check of report.checks) seen.set(check.id, (seen.get(check.id) ?? new Set()).add(check.status));
  };

  it.each(rows)('$name', async (row) => {
    const key = keys.get(row.user)!;
    const { report } = await scan(key, {
      aheadDays: row.aheadDays,
      scope: row.scope,
      config: { leaked_sha256: [], ...row.config?.(key, { now: Date.now() }) },
    });
    record(report);
    const status = statuses(report);
    const expected = Object.fromEntries(
      AWS_RULES.map((rule) => [rule, row.others?.[rule] ?? (row.fails.includes(rule) ? 'fail' : 'pass')]),
    );
    expected['nhi.exposure.leaked'] = row.fails.includes('nhi.exposure.leaked') ? 'fail' : 'pass';
    expect(Object.fromEntries(Object.keys(expected).map((rule) => [rule, status[rule]]))).toEqual(expected);
    expect(report.status).toBe('ok');
  });

  it('says a previous scan was the last use, and whose', async () => {
    const key = keys.get('reader')!;
    const now = Date.now();
    const { report } = await scan(key, {
      aheadDays: 100,
      scope: { max_key_age_days: 120 },
      config: { previous_scan: { started_at: new Date(now - 60_000).toISOString(), finished_at: new Date(now + 60_000).toISOString() } },
    });
    const finding = report.findings.find((item) => item.rule_id === 'nhi.aws.key_unused')!;

    expect(finding.evidence.scanner_use).toBe('the previous nhi scan');
    expect(finding.detail).toMatch(/No use but the scanner's own/);
  });

  it('fires every AWS rule in some row and passes it in another (root_key and a non-AKIA key: aws-bad-input.test.ts; moto has neither)', () => {
    for (const rule of [...AWS_RULES, 'nhi.exposure.leaked'].filter(
      (id) => !['nhi.aws.root_key', 'nhi.aws.long_lived_user_key', 'nhi.credential.invalid'].includes(id),
    )) {
      expect([rule, [...(seen.get(rule) ?? [])].sort()]).toEqual([rule, expect.arrayContaining(['fail', 'pass'])]);
    }
  });

  it('reports a key moto rejects as invalid and skips the rest', async () => {
    const key = keys.get('reader')!;
    const { report } = await scan({ ...key, secret_access_key: 'x'.repeat(40) });
    const status = statuses(report);

    expect(status['nhi.credential.invalid']).toBe('fail');
    expect(report.findings.map((finding) => finding.rule_id)).toEqual(['nhi.credential.invalid']);
    expect(rulesOf('aws').map((rule) => status[rule])).toEqual(rulesOf('aws').map(() => 'skipped'));
    expect(status['nhi.exposure.leaked']).toBe('skipped');
  });

  it('makes each self-inspection the key may not make an error, never a pass', async () => {
    const { report } = await scan(keys.get('no-read')!);
    const status = statuses(report);

    for (const rule of [
      'nhi.aws.key_age',
      'nhi.aws.key_unused',
      'nhi.aws.two_active_keys',
      'nhi.aws.admin_policy',
      'nhi.aws.service_wildcard',
      'nhi.aws.privilege_escalation',
    ]) {
      expect([rule, status[rule]]).toEqual([rule, 'error']);
      expect(detailOf(report, rule)).toMatch(/the credential cannot read its own metadata: iam:\w+ denied by AWS \(AccessDenied\)/);
    }
    expect(status['nhi.credential.invalid']).toBe('pass');
    expect(report.status).toBe('partial');
  });

  it('refuses a policy document of 6,000 statements as an error with the reason', async () => {
    const statements = Array.from({ length: 6000 }, (_, index) => allow(`s3:GetObject`, `arn:aws:s3:::bucket-${index}/*`));
    await account.iam.send(
      new PutUserPolicyCommand({ UserName: 'no-read', PolicyName: 'huge', PolicyDocument: JSON.stringify(policy(...statements)) }),
    );
    await account.iam.send(
      new PutUserPolicyCommand({ UserName: 'no-read', PolicyName: 'read', PolicyDocument: JSON.stringify(SELF_READ) }),
    );
    const { report } = await scan(keys.get('no-read')!);
    const status = statuses(report);

    for (const rule of ['nhi.aws.admin_policy', 'nhi.aws.service_wildcard', 'nhi.aws.privilege_escalation']) {
      expect([rule, status[rule]]).toEqual([rule, 'error']);
      expect(detailOf(report, rule)).toMatch(/huge \(inline in the user\): the document (has 6000 statements|is larger than)/);
    }
    expect(status['nhi.aws.key_age']).toBe('pass');
  });

  it('never prints the secret access key', async () => {
    const key = keys.get('admin')!;
    const { report, stderr } = await scan(key, { config: { leaked_sha256: [sha256(key.secret_access_key)] } });

    expect(JSON.stringify(report)).not.toContain(key.secret_access_key);
    expect(stderr).not.toContain(key.secret_access_key);
  });
});
