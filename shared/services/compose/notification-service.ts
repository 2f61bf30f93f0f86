import type { TargetPolicy } from '../../domain/network-policy.ts';
import type { DigestStore } from '../../ports/digest-store.ts';
import type { EmailSender, HttpPoster, NotificationQueue } from '../../ports/notification-channels.ts';
import type { NotificationRuleRepository } from '../../ports/notification-rule-repository.ts';
import { makeNotificationDelivery, type NotificationDeliveryDeps } from '../notification-delivery.ts';
import { makeNotificationService } from '../notification-service.ts';
import type { Adapters } from './adapters.ts';

/** The API sends test deliveries only: events are fanned out by the notifier, never by a request. */
const noFanOut: NotificationQueue = {
  send: async () => {
    throw new Error('this function delivers test events only; events reach the notifier through its queue');
  },
};

/**
 * Notification rules and their delivery (the schedules function's routes, the notifier, the local
 * runtime): one wiring, so the test endpoint sends exactly what a real delivery sends.
 */
export function composeNotificationServices(
  { clock, ids, logger }: Adapters<'clock' | 'ids' | 'logger'>,
  {
    rules,
    http,
    email,
    queue = noFanOut,
    appUrl,
    targetPolicy,
    allowLoopback = false,
    retryOptions,
    digests,
  }: {
    rules: NotificationRuleRepository;
    http: HttpPoster;
    email: EmailSender;
    /** Where fan-out puts one delivery per rule; omitted where nothing fans out (the API). */
    queue?: NotificationQueue;
    /** The UI's origin, for the links in messages. */
    appUrl: string;
    targetPolicy: TargetPolicy;
    /** Loopback endpoints over plain http: the local runtime with ALLOW_LOOPBACK_TARGETS only. */
    allowLoopback?: boolean;
    retryOptions?: NotificationDeliveryDeps['retryOptions'];
    /** Where digest rules' events wait (the notifier, the local runtime); without it every rule sends each event. */
    digests?: DigestStore;
  },
) {
  const delivery = makeNotificationDelivery({ rules, queue, http, email, logger, appUrl, retryOptions, digests });
  const notifications = makeNotificationService({ rules, delivery, ids, clock, logger, targetPolicy, allowLoopback });
  return { delivery, notifications };
}
