import type { SQSEvent } from 'aws-lambda';
import { systemClock } from '../shared/adapters/clock/system-clock.ts';
import { makeDocumentClient } from '../shared/adapters/dynamodb/document-client.ts';
import { makeDynamoDbDigestStore } from '../shared/adapters/dynamodb/dynamodb-digest-store.ts';
import { makeDynamoDbNotificationRuleRepository } from '../shared/adapters/dynamodb/dynamodb-notification-rule-repository.ts';
import { makeUlidGenerator } from '../shared/adapters/ids/ulid-id-generator.ts';
import { makeHttpPoster } from '../shared/adapters/notifications/http-poster.ts';
import { lazySesClient, makeSesEmailSender } from '../shared/adapters/notifications/ses-email-sender.ts';
import { lazySqsClient, makeSqsNotificationQueue } from '../shared/adapters/sqs/sqs-notification-queue.ts';
import type { NotifierConfig } from '../shared/config/function-config.ts';
import { DEFAULT_TARGET_POLICY } from '../shared/domain/network-policy.ts';
import type { Logger } from '../shared/ports/logger.ts';
import { composeNotificationServices } from '../shared/services/compose/notification-service.ts';
import type { NotificationDeliveryDeps } from '../shared/services/notification-delivery.ts';
import { makeDigestFlushHandler, makeNotifierHandler, type DigestFlushEvent } from './notifier-handler.ts';

/** What the notifier sends through: the rules, the queue deliveries go back on, HTTP and email. */
export type NotifierAdapters = Pick<NotificationDeliveryDeps, 'rules' | 'queue' | 'http' | 'email' | 'digests'>;

/**
 * The notifier's adapters in AWS: the rules in the table, the notification queue (SQS), HTTP
 * through the connect-time guard, SES from the configured sender. A tenant's endpoint is never
 * inside the deployment: the default target policy (no loopback, link-local/metadata or private
 * address), whatever ALLOW_PRIVATE_TARGETS lets scans reach. The SQS and SES clients are made at
 * their first use; `clients` replaces them in tests.
 */
export function awsNotifierAdapters(
  config: NotifierConfig,
  clients: { sqs?: Parameters<typeof makeSqsNotificationQueue>[0]; ses?: Parameters<typeof makeSesEmailSender>[0] } = {},
): NotifierAdapters {
  const documents = makeDocumentClient();
  return {
    rules: makeDynamoDbNotificationRuleRepository(documents, config.TABLE_NAME),
    digests: makeDynamoDbDigestStore(documents, config.TABLE_NAME),
    queue: makeSqsNotificationQueue(clients.sqs ?? lazySqsClient(), config.NOTIFICATION_QUEUE_URL),
    http: makeHttpPoster({ policy: DEFAULT_TARGET_POLICY }),
    email: makeSesEmailSender(clients.ses ?? lazySesClient(), config.NOTIFICATION_SENDER),
  };
}

/**
 * The notification queue's consumer over `adapters` (DESIGN §15, docs/notifications.md), wired by
 * the composer the schedules function's test delivery also uses, so both send the same thing.
 */
export function composeNotifier(
  config: NotifierConfig,
  adapters: NotifierAdapters,
  logger: Logger,
  retryOptions?: NotificationDeliveryDeps['retryOptions'],
) {
  const { delivery } = composeNotificationServices(
    { clock: systemClock, ids: makeUlidGenerator(), logger },
    { ...adapters, appUrl: config.APP_URL, targetPolicy: DEFAULT_TARGET_POLICY, retryOptions },
  );
  const deliver = makeNotifierHandler(delivery, logger);
  const flush = makeDigestFlushHandler(delivery, logger);
  // One function, two sources: the notification queue (SQS records) and the hourly digest schedule.
  const handler = (event: SQSEvent | DigestFlushEvent) => ('Records' in event ? deliver(event) : flush(event));
  return { delivery, handler };
}
