import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { randomBytes } from 'node:crypto';
import { makeSecretsManagerClient } from './secrets-manager-client.ts';

/** The event Secrets Manager sends a rotation function, once per step. */
export interface RotationEvent {
  /** `createSecret`, `setSecret`, `testSecret` or `finishSecret`; anything else is refused. */
  Step: string;
  SecretId: string;
  ClientRequestToken: string;
}

/** A new session key: 48 random bytes as 64 base64url characters, like the stack's generated one. */
export function newSessionKey(): string {
  return randomBytes(48).toString('base64url');
}

/** The shortest key the verifiers accept (shared/auth/session-token.ts). */
const MIN_KEY_LENGTH = 32;

/**
 * Rotates the session key secret with Secrets Manager's four-step protocol. The key is only ever
 * used inside this service, so there is no external system to update (setSecret does nothing):
 * the new version becomes AWSCURRENT, the old one AWSPREVIOUS, and the authorizer accepts both
 * until the next rotation, so sessions minted before the rotation last until they expire.
 * Every step is idempotent: Secrets Manager retries a step that failed.
 */
export function makeSessionKeyRotation(client = makeSecretsManagerClient(), generateKey: () => string = newSessionKey) {
  async function checkVersion(event: RotationEvent): Promise<Record<string, string[]>> {
    const description = await client.send(new DescribeSecretCommand({ SecretId: event.SecretId }));
    if (!description.RotationEnabled) throw new Error('rotation is not enabled on the session key secret');
    const versions = description.VersionIdsToStages ?? {};
    const stages = versions[event.ClientRequestToken];
    if (!stages) throw new Error('the rotation token is not a version of the session key secret');
    return versions;
  }

  async function pendingExists(event: RotationEvent): Promise<boolean> {
    try {
      await client.send(
        new GetSecretValueCommand({ SecretId: event.SecretId, VersionId: event.ClientRequestToken, VersionStage: 'AWSPENDING' }),
      );
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw error;
    }
  }

  return async function rotate(event: RotationEvent): Promise<void> {
    const versions = await checkVersion(event);
    const stages = versions[event.ClientRequestToken] ?? [];
    if (stages.includes('AWSCURRENT')) return; // this version already finished rotating
    if (!stages.includes('AWSPENDING')) throw new Error('the rotation token is not the pending version');

    switch (event.Step) {
      case 'createSecret':
        if (await pendingExists(event)) return;
        await client.send(
          new PutSecretValueCommand({
            SecretId: event.SecretId,
            ClientRequestToken: event.ClientRequestToken,
            SecretString: generateKey(),
            VersionStages: ['AWSPENDING'],
          }),
        );
        return;
      case 'setSecret':
        return;
      case 'testSecret': {
        const pending = await client.send(
          new GetSecretValueCommand({ SecretId: event.SecretId, VersionId: event.ClientRequestToken, VersionStage: 'AWSPENDING' }),
        );
        if ((pending.SecretString ?? '').length < MIN_KEY_LENGTH) throw new Error('the pending session key is too short');
        return;
      }
      case 'finishSecret': {
        const current = Object.entries(versions).find(([, versionStages]) => versionStages.includes('AWSCURRENT'))?.[0];
        await client.send(
          new UpdateSecretVersionStageCommand({
            SecretId: event.SecretId,
            VersionStage: 'AWSCURRENT',
            MoveToVersionId: event.ClientRequestToken,
            ...(current ? { RemoveFromVersionId: current } : {}),
          }),
        );
        return;
      }
      default:
        throw new Error(`unknown rotation step ${JSON.stringify(event.Step).slice(0, 40)}`);
    }
  };
}
