import { makeDocumentClient } from '../../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbArtifactRepository } from '../../shared/adapters/dynamodb/dynamodb-artifact-repository.ts';
import { makeDynamoDbNotificationRuleRepository } from '../../shared/adapters/dynamodb/dynamodb-notification-rule-repository.ts';
import { makeDynamoDbScheduleRepository } from '../../shared/adapters/dynamodb/dynamodb-schedule-repository.ts';
import { lazySesClient, makeSesEmailSender } from '../../shared/adapters/notifications/ses-email-sender.ts';
import { DEFAULT_TARGET_POLICY } from '../../shared/domain/network-policy.ts';
import type { EmailSender } from '../../shared/ports/notification-channels.ts';
import { makeHttpPoster } from '../../shared/adapters/notifications/http-poster.ts';
import { systemClock } from '../../shared/adapters/clock/system-clock.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { SchedulesConfig, readConfig } from '../../shared/config/function-config.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { makeArtifactReferences } from '../../shared/services/artifact-references.ts';
import { composeNotificationServices } from '../../shared/services/compose/notification-service.ts';
import { composeScheduleService } from '../../shared/services/compose/schedule-service.ts';
import { makeEventBridgeTriggers } from '../eventbridge-triggers.ts';
import { makeSchedulesHandler } from './schedules-handler.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import { makeDynamoDbCredentialRepository } from '../../shared/adapters/dynamodb/dynamodb-credential-repository.ts';
import { makeKmsClient } from '../../shared/adapters/kms/kms-client.ts';
import { makeKmsKeyWrapper } from '../../shared/adapters/kms/kms-key-wrapper.ts';
import { makeCredentialReferences } from '../../shared/services/credential-references.ts';
import { makeCredentialService } from '../../shared/services/credential-service.ts';

// Composition root for AWS: configuration and clients are built once per cold start.
const config = readConfig(SchedulesConfig);
const logger = makeLogger('schedules');
const documents = makeDocumentClient();
const ids = makeUlidGenerator();
const targetPolicy = { allowPrivate: config.ALLOW_PRIVATE_TARGETS };
// The tenant vault (DESIGN §16): this function seals secrets with the stack's KMS key (Encrypt only).
const credentialRepo = makeDynamoDbCredentialRepository(documents, config.TABLE_NAME);
const credentials = makeCredentialService({
  repo: credentialRepo,
  wrapper: makeKmsKeyWrapper(makeKmsClient(), config.CREDENTIAL_KEY_ARN),
  clock: systemClock,
  logger,
  targetPolicy,
});
const schedules = composeScheduleService(
  {
    schedules: makeDynamoDbScheduleRepository(documents, config.TABLE_NAME),
    clock: systemClock,
    ids,
    logger,
    targetPolicy,
    runnerTypes: new Set(runnerScanTypes()),
  },
  {
    triggers: makeEventBridgeTriggers(config, logger),
    credentials: makeCredentialReferences(credentialRepo),
    quota: config.SCHEDULE_QUOTA,
    // The scope's artifact ids are read from their rows (GetItem), never their bytes: no bucket grant.
    artifacts: makeArtifactReferences(makeDynamoDbArtifactRepository(documents, config.TABLE_NAME), systemClock),
  },
);

// Notification rules and their test delivery, sent as the notifier sends (functions/notifier-composition.ts):
// a tenant's endpoint is never inside the deployment, whatever ALLOW_PRIVATE_TARGETS lets scans reach.
const unconfiguredEmail: EmailSender = {
  send: async () => {
    throw new Error('email is not configured in this deployment (no NOTIFICATION_SENDER)');
  },
};
const { notifications } = composeNotificationServices(
  { clock: systemClock, ids, logger },
  {
    rules: makeDynamoDbNotificationRuleRepository(documents, config.TABLE_NAME),
    http: makeHttpPoster({ policy: DEFAULT_TARGET_POLICY }),
    // The SES client is made at the first email test: the other routes never load it.
    email: config.NOTIFICATION_SENDER ? makeSesEmailSender(lazySesClient(), config.NOTIFICATION_SENDER) : unconfiguredEmail,
    appUrl: config.APP_URL ?? config.ALLOWED_ORIGINS[0] ?? '',
    targetPolicy: DEFAULT_TARGET_POLICY,
  },
);

export const handler = makeSchedulesHandler({ schedules, notifications, credentials, logger, allowedOrigins: config.ALLOWED_ORIGINS });
