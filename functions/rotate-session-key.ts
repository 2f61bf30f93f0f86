import { makeSessionKeyRotation, type RotationEvent } from '../shared/adapters/secrets/session-key-rotation.ts';
import { makeLogger } from '../shared/observability/logger.ts';

const logger = makeLogger('rotate-session-key');
const rotate = makeSessionKeyRotation();

/** Secrets Manager rotation function of the session key secret (docs/auth-in-aws.md). Never logs a key. */
export async function handler(event: RotationEvent): Promise<void> {
  logger.info('session key rotation step', { step: event.Step, version: event.ClientRequestToken });
  await rotate(event);
}
