import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DispatchFailedError } from '../../domain/errors.ts';
import { QueueMessage } from '../../domain/messages.ts';
import type { MessageQueue } from '../../ports/message-queue.ts';
import type { ResourceClass } from '../../../lib/engine-manifest.ts';

/** The slice of a structured logger (Powertools Logger fits) this adapter writes to. */
export interface QueueLogger {
  warn(message: string, attributes: Record<string, unknown>): void;
}

/** Constructor options of {@link SqsMessageQueue}. */
export interface SqsMessageQueueOptions {
  /** Build it with makeSqsClient(). */
  client: SQSClient;
  /** The standard class's scan queue. */
  queueUrl: string;
  /** The other resource classes' scan queues (SCAN_QUEUE_URL_LONG); a message for a class without one is refused. */
  classQueueUrls?: Partial<Record<ResourceClass, string>>;
  logger?: QueueLogger;
}

/**
 * MessageQueue on SQS standard queues, one per resource class (DESIGN §11): one SendMessage per
 * message to its class's queue, the body the message's JSON.
 *
 * A message that does not match the QueueMessage schema is a programming error and throws the
 * schema's error before anything is sent. A refusal by SQS becomes DispatchFailedError naming the
 * operation and the error's name only (SDK messages quote account ids; they are logged instead).
 */
export class SqsMessageQueue implements MessageQueue {
  readonly #client: SQSClient;
  readonly #queueUrls: Partial<Record<ResourceClass, string>>;
  readonly #logger: QueueLogger | undefined;

  constructor(options: SqsMessageQueueOptions) {
    this.#client = options.client;
    this.#queueUrls = { ...options.classQueueUrls, standard: options.queueUrl };
    this.#logger = options.logger;
  }

  async send(message: QueueMessage, resourceClass: ResourceClass = 'standard'): Promise<void> {
    const body = JSON.stringify(QueueMessage.parse(message));
    const queueUrl = this.#queueUrls[resourceClass];
    if (queueUrl === undefined) {
      this.#logger?.warn('queue send failed', { operation: 'SendMessage', error: 'NoQueueForClass', detail: resourceClass });
      throw new DispatchFailedError(`no scan queue is configured for the ${resourceClass} resource class`);
    }
    try {
      await this.#client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
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
