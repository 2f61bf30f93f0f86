import type { ServiceEvent } from '../domain/notification.ts';

/**
 * Port: where the service's events go (DESIGN §15): an EventBridge custom bus in AWS, the
 * in-process notification queue locally. Delivery to tenants' rules is downstream of it.
 */
export interface EventPublisher {
  /** Publishes every event or throws; publishing the same ids again is harmless (receivers dedupe). */
  publish(events: readonly ServiceEvent[]): Promise<void>;
}

/** Publishes nothing: a composition without notifications. */
export const noEvents: EventPublisher = { publish: async () => {} };
