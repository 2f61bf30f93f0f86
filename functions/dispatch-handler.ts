import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { QueueMessage } from '../shared/domain/messages.ts';
import type { Logger } from '../shared/ports/logger.ts';
import { noMetrics, type Metrics } from '../shared/ports/metrics.ts';
import type { DispatchService } from '../shared/services/dispatch-service.ts';

/** The body of a record, or null when it is not one of our messages (it will reach the DLQ). */
function parseRecord(record: SQSRecord): QueueMessage | null {
  try {
    const parsed = QueueMessage.safeParse(JSON.parse(record.body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The scan queue's consumer (SQS event source, ReportBatchItemFailures). Each record is handled
 * on its own; a record that throws is reported as a batch item failure so only it is redelivered.
 */
export function makeDispatchHandler(dispatch: DispatchService, logger: Logger, metrics: Metrics = noMetrics) {
  return async function dispatchScans(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    const remainingMs = () => context.getRemainingTimeInMillis();
    for (const record of event.Records) {
      const message = parseRecord(record);
      if (!message) {
        logger.error('unreadable queue message', { message_id: record.messageId });
        metrics.record('DispatchFailures', 1, {});
        failures.push({ itemIdentifier: record.messageId });
        continue;
      }
      try {
        if (message.kind === 'fire') await dispatch.handleFire(message, remainingMs);
        else if (message.kind === 'adversary') await dispatch.handleAdversary(message, remainingMs);
        else await dispatch.handleScan(message, remainingMs);
      } catch (error) {
        logger.error('dispatch failed; the message will be redelivered', { message_id: record.messageId, tenant: message.tenant, error });
        metrics.record('DispatchFailures', 1, {});
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}

/**
 * The scan DLQ's consumer: every message there exhausted its receives. Its job and schedule are
 * marked failed with the reason; a message that is not ours is logged and dropped.
 */
export function makeDeadLetterHandler(dispatch: DispatchService, logger: Logger) {
  return async function failDeadLetters(event: SQSEvent): Promise<SQSBatchResponse> {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const message = parseRecord(record);
      if (!message) {
        logger.error('unreadable dead letter dropped', { message_id: record.messageId });
        continue;
      }
      try {
        await dispatch.handleDeadLetter(
          message,
          `the ${message.kind} message exhausted its deliveries to the dispatcher (the queue moved it to the DLQ)`,
        );
      } catch (error) {
        logger.error('dead letter handling failed', { message_id: record.messageId, error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}
