import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { mapBounded } from '../../../lib/concurrency.ts';
import { retry, type RetryOptions } from '../../../lib/retry.ts';
import { EVENT_SOURCE, type ServiceEvent } from '../../domain/notification.ts';
import type { EventPublisher } from '../../ports/event-publisher.ts';
import type { Logger } from '../../ports/logger.ts';

/** PutEvents takes at most 10 entries... */
export const MAX_ENTRIES_PER_CALL = 10;
/** ...and at most 256 KiB of them in one call (an entry's size as EventBridge counts it, {@link entrySize}). */
export const MAX_BYTES_PER_CALL = 256 * 1024;
/**
 * Entry error codes the PutEvents reference calls retryable. The others (MalformedDetail,
 * InvalidArgument, AccessDeniedException, ...) fail the same way every time.
 */
const RETRYABLE_CODES = new Set(['InternalFailure', 'ThrottlingException']);
/**
 * PutEvents calls in flight for one publish: a first scan of a large target publishes an event per
 * issue (1,000 issues: 101 calls), and the scan waits for them before it closes. Four keep that to
 * about a second without one scan taking much of the account's PutEvents quota.
 */
export const PUBLISH_CONCURRENCY = 4;
/** Attempts for the entries EventBridge refused with a retryable code; the SDK already retries a failed call. */
const ENTRY_RETRY: Pick<RetryOptions, 'attempts' | 'baseMs' | 'maxMs'> = { attempts: 3, baseMs: 200, maxMs: 2_000 };

/** Some events were not published: each with EventBridge's error code (or ours: EntryTooLarge). */
export class EventsNotPublishedError extends Error {
  override readonly name = 'EventsNotPublishedError';
  constructor(
    readonly failures: ReadonlyArray<{ event_id: string; code: string }>,
    total: number,
  ) {
    super(`${failures.length} of ${total} events not published (${[...new Set(failures.map((failure) => failure.code))].join(', ')})`);
  }
}

/** The entries of one attempt that failed with a retryable code: the retry loop's signal to go again. */
class RetryableEntries extends Error {}

interface Pending {
  event: ServiceEvent;
  entry: PutEventsRequestEntry;
  code?: string;
}

/** An entry's size as EventBridge counts it against the 256 KiB limit: 14 bytes for Time, then UTF-8 bytes of the rest. */
export function entrySize(entry: PutEventsRequestEntry): number {
  const bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text, 'utf8'));
  return (
    (entry.Time ? 14 : 0) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    (entry.Resources ?? []).reduce((sum, resource) => sum + bytes(resource), 0)
  );
}

/** Consecutive groups of at most MAX_ENTRIES_PER_CALL entries and MAX_BYTES_PER_CALL bytes. */
function batches(pending: readonly Pending[]): Pending[][] {
  const groups: Pending[][] = [];
  let current: Pending[] = [];
  let bytes = 0;
  for (const item of pending) {
    const size = entrySize(item.entry);
    if (current.length === MAX_ENTRIES_PER_CALL || (current.length > 0 && bytes + size > MAX_BYTES_PER_CALL)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

export interface EventBridgePublisherOptions {
  /** The custom bus of the stack (EVENT_BUS_NAME). */
  busName: string;
  /** Made at the first publish (lazyEventBridgeClient), so a cold start never loads the SDK client. */
  client: () => Promise<Pick<EventBridgeClient, 'send'>>;
  logger: Logger;
  /** Overrides of the entry retry (tests pass `sleep`). */
  retryOptions?: Partial<RetryOptions>;
}

/**
 * The service's events on its EventBridge custom bus (DESIGN §15): one entry per event, `source`
 * EVENT_SOURCE, `detail-type` the event's type, `detail` the event itself (the rule hands `detail`
 * to the notification queue). PutEvents in calls of at most 10 entries and 256 KiB, up to
 * PUBLISH_CONCURRENCY at once; entries it
 * refuses with a retryable code are sent again alone, with backoff. Every batch is tried before
 * the failures are thrown together, so one bad entry does not hold back the others.
 */
export function makeEventBridgePublisher({ busName, client, logger, retryOptions }: EventBridgePublisherOptions): EventPublisher {
  async function publishBatch(batch: Pending[], failed: Array<{ event_id: string; code: string }>): Promise<void> {
    const events = await client();
    const { PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
    let pending = batch;
    try {
      await retry(
        async () => {
          const answer = await events.send(new PutEventsCommand({ Entries: pending.map((item) => item.entry) }));
          if (!answer.FailedEntryCount) {
            pending = [];
            return;
          }
          const again: Pending[] = [];
          pending.forEach((item, index) => {
            const result = answer.Entries?.[index];
            if (result?.EventId && !result.ErrorCode) return;
            const code = result?.ErrorCode ?? 'Unknown';
            if (RETRYABLE_CODES.has(code)) again.push({ ...item, code });
            else failed.push({ event_id: item.event.id, code });
          });
          pending = again;
          if (again.length > 0) throw new RetryableEntries();
        },
        {
          ...ENTRY_RETRY,
          retryable: (error) => error instanceof RetryableEntries,
          onRetry: (_error, attempt, delayMs) =>
            logger.warn('events refused; retrying them', { attempt, delay_ms: delayMs, entries: pending.length, bus: busName }),
          ...retryOptions,
        },
      );
    } catch (error) {
      // RetryableEntries: the attempts ran out. Anything else is the call itself failing after the
      // SDK's retries: every entry still pending is unpublished, named by the error.
      if (!(error instanceof RetryableEntries)) {
        const code = error instanceof Error && error.name ? error.name : 'Unknown';
        pending = pending.map((item) => ({ ...item, code }));
      }
    }
    for (const item of pending) failed.push({ event_id: item.event.id, code: item.code ?? 'Unknown' });
  }

  return {
    async publish(serviceEvents) {
      const failed: Array<{ event_id: string; code: string }> = [];
      const sendable: Pending[] = [];
      for (const event of serviceEvents) {
        const entry: PutEventsRequestEntry = {
          EventBusName: busName,
          Source: EVENT_SOURCE,
          DetailType: event.type,
          Detail: JSON.stringify(event),
          Time: new Date(event.occurred_at),
        };
        // One entry alone over the call's limit can never be sent: reported, not attempted.
        if (entrySize(entry) > MAX_BYTES_PER_CALL) failed.push({ event_id: event.id, code: 'EntryTooLarge' });
        else sendable.push({ event, entry });
      }
      await mapBounded(batches(sendable), PUBLISH_CONCURRENCY, (batch) => publishBatch(batch, failed));
      if (failed.length > 0) throw new EventsNotPublishedError(failed, serviceEvents.length);
    },
  };
}
