import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Logger } from '../shared/ports/logger.ts';
import type { NotificationMessage } from '../shared/ports/notification-channels.ts';
import type { NotificationDelivery } from '../shared/services/notification-delivery.ts';

/** The body of a record, or null when it is not a notification message (it will reach the DLQ). */
function parseRecord(body: string): NotificationMessage | null {
  try {
    const message = JSON.parse(body) as Partial<NotificationMessage>;
    const event = message.event as { id?: unknown; tenant?: unknown; type?: unknown } | undefined;
    if (typeof event?.id !== 'string' || typeof event.tenant !== 'string' || typeof event.type !== 'string') return null;
    if (message.kind === 'event') return message as NotificationMessage;
    if (message.kind === 'delivery' && typeof message.rule_id === 'string') return message as NotificationMessage;
    return null;
  } catch {
    return null;
  }
}

/**
 * The notification queue's consumer (SQS event source, ReportBatchItemFailures): fans an event out
 * to its rules, or makes one delivery. A failed record is reported alone and redelivered after the
 * visibility timeout; after the queue's maximum receives it moves to the notification DLQ.
 */
export function makeNotifierHandler(delivery: NotificationDelivery, logger: Logger) {
  return async function deliverNotifications(event: SQSEvent): Promise<SQSBatchResponse> {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const message = parseRecord(record.body);
      if (!message) {
        logger.error('unreadable notification message', { message_id: record.messageId });
        failures.push({ itemIdentifier: record.messageId });
        continue;
      }
      try {
        await delivery.handle(message);
      } catch (error) {
        logger.warn('notification failed; the message will be redelivered', {
          message_id: record.messageId,
          tenant: message.event.tenant,
          event_id: message.event.id,
          receive_count: record.attributes.ApproximateReceiveCount,
          error: String(error),
        });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}

/** What the stack's hourly schedule sends the notifier (infra/constructs/notifications.ts): the schedule's fire time. */
export interface DigestFlushEvent {
  kind: 'flush_digests';
  /** The scheduled event's `time` (ISO 8601). */
  time: string;
}

/**
 * The hourly digest flush (DESIGN §15, docs/digests-and-sla.md): sends the digests of the periods
 * that ended before the fire time. A failure throws, so the asynchronous invocation is retried;
 * what still fails is sent by a later hour's flush (it looks back a day).
 */
export function makeDigestFlushHandler(delivery: NotificationDelivery, logger: Logger) {
  return async function flushDigests(event: DigestFlushEvent): Promise<{ sent: number; events: number }> {
    if (event?.kind !== 'flush_digests' || typeof event.time !== 'string' || Number.isNaN(Date.parse(event.time))) {
      logger.error('unreadable digest flush event', { event: JSON.stringify(event).slice(0, 500) });
      throw new Error('not a digest flush event');
    }
    const { sent, events, periods } = await delivery.flushDue(event.time);
    logger.info('digests flushed', { time: event.time, through: periods.at(-1), sent, events });
    return { sent, events };
  };
}
