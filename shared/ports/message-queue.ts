import type { QueueMessage } from '../domain/messages.ts';
import type { ResourceClass } from '../../lib/engine-manifest.ts';

/**
 * Port for the scan queues (SQS in AWS, one per resource class; the in-process queue locally, one
 * for every class).
 */
export interface MessageQueue {
  /**
   * Put one message on the scan queue of `resourceClass` (DESIGN §11: the class of the message's
   * scan type; standard when absent). Throws DispatchFailedError when the queue refuses.
   */
  send(message: QueueMessage, resourceClass?: ResourceClass): Promise<void>;
}
