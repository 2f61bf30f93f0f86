import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DispatchFailedError } from '../../domain/errors.ts';
import { QueueMessage } from '../../domain/messages.ts';
import type { MessageQueue } from '../../ports/message-queue.ts';

/** The slice of a structured logger (Powertools Logger fits) this adapter writes to. */
export interface QueueLogger {
  warn(message: string, attributes: Record<string, unknown>): void;
}

/** Constructor options of {@link SqsMessageQueue}. */
export interface SqsMessageQueueOptions {
  /** Build it with makeSqsClient(). */
  client: SQSClient;
  queueUrl: string;
  logger?: QueueLogger;
}

/**
 * MessageQueue on an SQS standard queue: one SendMessage per message, the body the message's JSON.
 *
 * A message that does not match the QueueMessage schema is a programming error and throws the
 * schema's error before anything is sent. A refusal by SQS becomes DispatchFailedError naming the
 * operation and the error's name only (SDK messages quote account ids; they are logged instead).
 */
export class SqsMessageQueue implements MessageQueue {
  readonly #client: SQSClient;
  readonly #queueUrl: string;
  readonly #logger: QueueLogger | undefined;

  constructor(options: SqsMessageQueueOptions) {
    this.#client = options.client;
    this.#queueUrl = options.queueUrl;
    this.#logger = options.logger;
  }

  async send(message: QueueMessage): Promise<void> {
    const body = JSON.stringify(QueueMessage.parse(message));
    try {
      await this.#client.send(new SendMessageCommand({ QueueUrl: this.#queueUrl, MessageBody: body }));
    } catch (error) {
      const name = error instanceof Error && error.name ? error.name : 'UnknownError';
      this.#logger?.warn('queue send failed', {
        operation: 'SendMessage',
        error: name,
        detail: error instanceof Error ? error.message : String(error),
      });
      throw new DispatchFailedError(`SQS SendMessage failed (${name})`);
    }
  }
}
