import type { QueueMessage } from '../domain/messages.ts';

/** Port for the scan queue (SQS in AWS, the in-process queue locally). */
export interface MessageQueue {
  /** Put one message on the queue. Throws DispatchFailedError when the queue refuses. */
  send(message: QueueMessage): Promise<void>;
}
