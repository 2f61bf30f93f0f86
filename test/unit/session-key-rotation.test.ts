import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeSessionKeyRotation, newSessionKey } from '../../shared/adapters/secrets/session-key-rotation.ts';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:session-AbCdEf';
const OLD = 'version-old';
const NEW = 'version-new';
const step = (Step: string) => ({ Step, SecretId: SECRET, ClientRequestToken: NEW });

describe('session key rotation (Secrets Manager rotation steps)', () => {
  const secrets = mockClient(SecretsManagerClient);
  const rotate = makeSessionKeyRotation(secrets as unknown as SecretsManagerClient, () => 'generated-key-generated-key-generated-key-0123');
  const duringRotation = { RotationEnabled: true, VersionIdsToStages: { [OLD]: ['AWSCURRENT'], [NEW]: ['AWSPENDING'] } };
  beforeEach(() => secrets.reset());

  it('creates the pending version with a new key', async () => {
    secrets.on(DescribeSecretCommand).resolves(duringRotation);
    secrets.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: 'no pending value', $metadata: {} }));

    await rotate(step('createSecret'));

    expect(secrets.commandCalls(PutSecretValueCommand).map((call) => call.args[0].input)).toEqual([
      {
        SecretId: SECRET,
        ClientRequestToken: NEW,
        SecretString: 'generated-key-generated-key-generated-key-0123',
        VersionStages: ['AWSPENDING'],
      },
    ]);
  });

  it('keeps the pending key when createSecret is retried', async () => {
    secrets.on(DescribeSecretCommand).resolves(duringRotation);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'already-made-already-made-already-made-000' });

    await rotate(step('createSecret'));

    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('tests that the pending key is long enough to sign with', async () => {
    secrets.on(DescribeSecretCommand).resolves(duringRotation);
    secrets.on(GetSecretValueCommand).resolves({ SecretString: 'short' });

    await expect(rotate(step('testSecret'))).rejects.toThrow('the pending session key is too short');
  });

  it('makes the new version current; Secrets Manager keeps the old one as AWSPREVIOUS', async () => {
    secrets.on(DescribeSecretCommand).resolves(duringRotation);

    await rotate(step('setSecret'));
    await rotate(step('finishSecret'));

    expect(secrets.commandCalls(UpdateSecretVersionStageCommand).map((call) => call.args[0].input)).toEqual([
      { SecretId: SECRET, VersionStage: 'AWSCURRENT', MoveToVersionId: NEW, RemoveFromVersionId: OLD },
    ]);
  });

  it('does nothing for a version that is already current', async () => {
    secrets
      .on(DescribeSecretCommand)
      .resolves({ RotationEnabled: true, VersionIdsToStages: { [NEW]: ['AWSCURRENT'], [OLD]: ['AWSPREVIOUS'] } });

    await rotate(step('finishSecret'));

    expect(secrets.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(0);
  });

  it('refuses a secret without rotation, a token that is no version, and an unknown step', async () => {
    secrets
      .on(DescribeSecretCommand)
      .resolvesOnce({ RotationEnabled: false, VersionIdsToStages: duringRotation.VersionIdsToStages })
      .resolves(duringRotation);

    await expect(rotate(step('createSecret'))).rejects.toThrow('rotation is not enabled');
    await expect(rotate({ ...step('createSecret'), ClientRequestToken: 'nope' })).rejects.toThrow('is not a version');
    await expect(rotate(step('dropTable'))).rejects.toThrow('unknown rotation step');
  });

  it('makes 64-character keys that differ each time', () => {
    const [a, b] = [newSessionKey(), newSessionKey()];

    expect(a).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(a).not.toBe(b);
  });
});
