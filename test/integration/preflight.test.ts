import { readFileSync } from 'node:fs';
import { CreateRoleCommand, IAMClient, ListRolesCommand } from '@aws-sdk/client-iam';
import { CreateEmailIdentityCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { DescribeParametersCommand, PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveEnvironment } from '../../infra/environment-settings.ts';
import { BOOTSTRAP_VERSION_PARAMETER, runPreflight } from '../../infra/preflight.ts';
import { startMotoServer, type MotoServer } from '../helpers/moto-server.ts';

const context = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context;
const dev = resolveEnvironment('dev', context.environments).settings;

describe('npm run preflight: the deploy preconditions, against moto', () => {
  let moto: MotoServer;
  let clients: { ssm: SSMClient; iam: IAMClient; ses: SESv2Client };
  beforeAll(async () => {
    moto = await startMotoServer();
    clients = { ssm: new SSMClient(moto.clientConfig), iam: new IAMClient(moto.clientConfig), ses: new SESv2Client(moto.clientConfig) };
    // moto loads a service's backend at its first request (IAM's takes seconds on a busy machine): here, not in a test.
    await Promise.all([
      clients.iam.send(new ListRolesCommand({})),
      clients.ssm.send(new DescribeParametersCommand({})),
      // A missing identity: moto answers GetEmailIdentity (its SES v2 has no ListEmailIdentities).
      clients.ses.send(new GetEmailIdentityCommand({ EmailIdentity: 'warm-up.example' })).catch(() => undefined),
    ]);
  });
  afterAll(async () => {
    for (const client of Object.values(clients ?? {})) client.destroy();
    await moto?.close();
  });
  beforeEach(async () => {
    await moto.reset();
  });

  it('passes a bootstrapped account with the adversary role and a verified sender identity', async () => {
    await clients.ssm.send(new PutParameterCommand({ Name: BOOTSTRAP_VERSION_PARAMETER, Value: '21', Type: 'String' }));
    await clients.iam.send(
      new CreateRoleCommand({
        RoleName: dev.adversaryEngineRoleName!,
        AssumeRolePolicyDocument: '{"Version":"2012-10-17","Statement":[]}',
      }),
    );
    await clients.ses.send(new CreateEmailIdentityCommand({ EmailIdentity: dev.notifications.senderIdentity }));

    const checks = await runPreflight(dev, moto.region, clients);

    expect(checks.map(({ name, ok }) => [name, ok])).toEqual([
      ['CDK bootstrap', true],
      ['adversary engine role', true],
      ['SES sender identity', true],
    ]);
    expect(checks[0].message).toBe(`bootstrap version 21 in ${moto.region}`);
  });

  it('fails each missing precondition with what to do about it', async () => {
    const checks = await runPreflight(dev, moto.region, clients);

    expect(checks).toEqual([
      {
        name: 'CDK bootstrap',
        ok: false,
        message: `${moto.region} is not bootstrapped (no ${BOOTSTRAP_VERSION_PARAMETER}): run npx cdk bootstrap`,
      },
      {
        name: 'adversary engine role',
        ok: false,
        message: expect.stringMatching(/^no IAM role adversary-engine-dev in this account: .*Create the role first/),
      },
      {
        name: 'SES sender identity',
        ok: false,
        message: expect.stringMatching(/^no SES identity scan-dev\.example\.com in this region: create and verify it/),
      },
    ]);
  });

  it('refuses a bootstrap older than the template requires', async () => {
    await clients.ssm.send(new PutParameterCommand({ Name: BOOTSTRAP_VERSION_PARAMETER, Value: '5', Type: 'String' }));

    const [bootstrap] = await runPreflight(dev, moto.region, clients);

    expect(bootstrap).toEqual({
      name: 'CDK bootstrap',
      ok: false,
      message: `bootstrap version 5 in ${moto.region}; the stack needs 6 or later: run npx cdk bootstrap`,
    });
  });
});
