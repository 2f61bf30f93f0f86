import type { SQSClient } from '@aws-sdk/client-sqs';
import type { NotificationMessage, NotificationQueue } from '../../ports/notification-channels.ts';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/**
 * The notification queue in AWS: the notifier puts one `{kind: delivery}` message per matching rule
 * back on the queue its event came from. The client comes from `client` at the first fan-out
 * ({@link lazySqsClient}), so an invocation that only delivers never loads it. A refused send
 * throws: the event's record fails and is redelivered, and the deliveries already sent are
 * harmless twice (receivers dedupe on the event id).
 */
export function makeSqsNotificationQueue(client: () => Promise<Pick<SQSClient, 'send'>>, queueUrl: string): NotificationQueue {
  return {
    async send(message: NotificationMessage) {
      const sqs = await client();
      const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
    },
  };
}

/** The SQS client, made at the first send and reused by the warm instance (SDK retries on, as in makeSqsClient). */
export function lazySqsClient(): () => Promise<SQSClient> {
  let client: Promise<SQSClient> | undefined;
  return () =>
    (client ??= import('@aws-sdk/client-sqs').then(
      ({ SQSClient: Client }) => new Client({ maxAttempts: 3, requestHandler: boundedRequestHandler(API_ATTEMPT) }),
    ));
}
