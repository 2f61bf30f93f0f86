/**
 * What moto cannot show: the account root's key, and an AWS that answers 500, throttles, sends
 * garbage or hangs. A loopback server speaks AWS's query protocol (XML) for STS and IAM; every
 * failure is an `error` check with its reason, never a pass and never a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rulesOf } from '../src/catalogue.ts';
import { actionOf, awsError, awsXml, startFakeApi, type Answer, type FakeApi } from './helpers/fake-api.ts';
import { detailOf, runNhiscan, statuses } from './helpers/run-scan.ts';

const KEY = { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const STS = 'https://sts.amazonaws.com/doc/2011-06-15/';

function rootAccount(action: string): Answer {
  if (action === 'GetCallerIdentity') {
    return {
      status: 200,
      headers: { 'content-type': 'text/xml' },
      body: awsXml(action, '<Arn>arn:aws:iam::123456789012:root</Arn><UserId>123456789012</UserId><Account>123456789012</Account>', STS),
    };
  }
  if (action === 'ListAccessKeys') {
    return {
      status: 200,
      headers: { 'content-type': 'text/xml' },
      body: awsXml(
        action,
        `<AccessKeyMetadata><member><AccessKeyId>${KEY.access_key_id}</AccessKeyId><Status>Active</Status><CreateDate>2026-01-01T00:00:00Z</CreateDate></member></AccessKeyMetadata><IsTruncated>false</IsTruncated>`,
      ),
    };
  }
  if (action === 'GetAccessKeyLastUsed') {
    return {
      status: 200,
      headers: { 'content-type': 'text/xml' },
      body: awsXml(
        action,
        '<UserName>root</UserName><AccessKeyLastUsed><ServiceName>N/A</ServiceName><Region>N/A</Region></AccessKeyLastUsed>',
      ),
    };
  }
  return { status: 400, headers: { 'content-type': 'text/xml' }, body: awsError('InvalidAction', action) };
}

describe('nhiscan against an AWS that misbehaves', () => {
  let api: FakeApi;
  beforeAll(async () => {
    api = await startFakeApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  const scan = () =>
    runNhiscan({
      credential: { alias: 'root-key', kind: 'aws_access_key', secret: KEY, allowed_hosts: [] },
      env: { NHISCAN_AWS_ENDPOINT: api.origin, NHISCAN_REQUEST_TIMEOUT_SECONDS: '0.5' },
      config: { leaked_sha256: [] },
    });

  it("reports the account root's key, and leaves the policies to it", async () => {
    api.answer((request) => rootAccount(actionOf(request.body)));
    const { report } = await scan();
    const status = statuses(report);

    expect(status['nhi.aws.root_key']).toBe('fail');
    expect(status['nhi.aws.long_lived_user_key']).toBe('fail');
    expect(status['nhi.aws.key_age']).toBe('fail');
    expect(status['nhi.aws.admin_policy']).toBe('skipped');
    expect(detailOf(report, 'nhi.aws.admin_policy')).toMatch(/root is not governed by IAM policies/);
    expect(api.seen.map((request) => actionOf(request.body)).every((action) => /^(Get|List)/.test(action))).toBe(true);
  });

  const failures: [string, () => Answer, RegExp][] = [
    ['answers 500', () => ({ status: 500, body: 'oops' }), /HTTP 500/],
    [
      'throttles',
      () => ({ status: 400, headers: { 'content-type': 'text/xml' }, body: awsError('Throttling', 'Rate exceeded') }),
      /throttled/,
    ],
    ['answers garbage', () => ({ status: 200, headers: { 'content-type': 'text/xml' }, body: '{"not": xml' }), /sts:GetCallerIdentity/],
    ['hangs', () => 'hang', /no answer in time|sts:GetCallerIdentity/],
  ];
  it.each(failures)('makes every AWS check an error with the reason when STS %s', async (_what, answer, reason) => {
    api.answer(answer);
    const { report } = await scan();
    const status = statuses(report);

    for (const rule of ['nhi.credential.invalid', ...rulesOf('aws')]) {
      expect([rule, status[rule]]).toEqual([rule, 'error']);
      expect(detailOf(report, rule)).toMatch(reason);
    }
    expect(report.findings).toEqual([]);
    expect(report.status).toBe('partial');
  });

  it('makes only the checks of a call that failed errors when IAM throttles later', async () => {
    api.answer((request) => {
      const action = actionOf(request.body);
      return action === 'GetAccessKeyLastUsed'
        ? { status: 400, headers: { 'content-type': 'text/xml' }, body: awsError('Throttling', 'Rate exceeded') }
        : rootAccount(action);
    });
    const { report } = await scan();
    const status = statuses(report);

    expect(status['nhi.aws.key_unused']).toBe('error');
    expect(detailOf(report, 'nhi.aws.key_unused')).toMatch(/throttled/);
    expect(status['nhi.aws.key_age']).toBe('fail');
  });
});
