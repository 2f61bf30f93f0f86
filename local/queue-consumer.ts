import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { LocalQueue, ReceivedMessage } from '../shared/adapters/local/local-queue.ts';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

function toEvent(queueName: string, messages: ReceivedMessage[]): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: message.messageId,
      receiptHandle: message.receiptHandle,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt.getTime()),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.sentAt.getTime()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${queueName}`,
      awsRegion: 'local',
    })),
  };
}

/**
 * The local stand-in for the SQS event source: receives a batch, invokes the same handler with an
 * SQS-shaped event, deletes what succeeded and leaves the reported failures to be redelivered
 * after their visibility timeout (and to reach the DLQ after the maximum receives).
 */
export class LocalQueueConsumer {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly queue: LocalQueue,
    private readonly handler: SqsHandler,
    private readonly options: {
      batchSize?: number;
      /**
       * The function's timeout for one batch: a number, or one read from the batch (the local scan
       * queue carries every resource class; each message gets its class's timeout, as its own
       * dispatch function would give it in AWS).
       */
      functionTimeoutMs: number | ((batch: readonly ReceivedMessage[]) => number);
      /**
       * Most batches handled at once, like the event source's MaximumConcurrency: each worker
       * receives its own batch, so a message is never handled twice at the same time. Default 1.
       */
      concurrency?: number;
      onError?: (error: unknown) => void;
    },
  ) {}

  /** Handles batches until the queue has no visible message; returns how many were handled. Serialised. */
  drain(): Promise<number> {
    this.#running = this.#running.then(
      () => this.#drainNow(),
      () => this.#drainNow(),
    );
    return this.#running;
  }

  async #drainNow(): Promise<number> {
    const workers = Array.from({ length: Math.max(1, this.options.concurrency ?? 1) }, () => this.#work());
    return (await Promise.all(workers)).reduce((sum, handled) => sum + handled, 0);
  }

  /** One worker: batch after batch until none is visible. */
  async #work(): Promise<number> {
    let handled = 0;
    for (;;) {
      const batch = this.queue.receive(this.options.batchSize ?? 1);
      if (batch.length === 0) return handled;
      const timeout = this.options.functionTimeoutMs;
      const deadline = Date.now() + (typeof timeout === 'number' ? timeout : timeout(batch));
      const context = {
        awsRequestId: randomUUID(),
        functionName: `local-${this.queue.name}`,
        getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      } as Context;
      let failed = new Set(batch.map((message) => message.messageId));
      try {
        const response = await this.handler(toEvent(this.queue.name, batch), context);
        failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
      } catch (error) {
        this.options.onError?.(error);
      }
      for (const message of batch) if (!failed.has(message.messageId)) this.queue.delete(message.receiptHandle);
      handled += batch.length;
    }
  }

  start(intervalMs = 500): void {
    this.#timer ??= setInterval(() => {
      this.drain().catch((error: unknown) => this.options.onError?.(error));
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
