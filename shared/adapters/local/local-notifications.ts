import type { EventPublisher } from '../../ports/event-publisher.ts';
import type { NotificationQueue } from '../../ports/notification-channels.ts';
import type { LocalQueue } from './local-queue.ts';

/** The notification queue over the in-process queue (SQS semantics: visibility, redelivery, DLQ). */
export function localNotificationQueue(queue: LocalQueue): NotificationQueue {
  return {
    send: async (message) => {
      queue.sendRaw(JSON.stringify(message));
    },
  };
}

/** Locally events go straight to the notification queue, where the bus rule puts them in AWS. */
export function queueEventPublisher(queue: NotificationQueue): EventPublisher {
  return {
    async publish(events) {
      for (const event of events) await queue.send({ kind: 'event', event });
    },
  };
}
