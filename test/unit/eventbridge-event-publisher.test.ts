import type { PutEventsCommandOutput, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { eventPublisherOf } from '../../functions/dispatch-composition.ts';
import {
  EventsNotPublishedError,
  MAX_BYTES_PER_CALL,
  PUBLISH_CONCURRENCY,
  entrySize,
  makeEventBridgePublisher,
} from '../../shared/adapters/eventbridge/eventbridge-event-publisher.ts';
import { EVENT_SOURCE, type ServiceEvent } from '../../shared/domain/notification.ts';
import { noEvents } from '../../shared/ports/event-publisher.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { scanFinishedEvent } from '../helpers/service-events.ts';

const BUS = 'scan-service-test-events';
const AT = scanFinishedEvent(0).occurred_at;

const finished = (n: number, padding = ''): ServiceEvent => scanFinishedEvent(n, `example${padding}.com`);

type Answer = (entries: PutEventsRequestEntry[], call: number) => Partial<PutEventsCommandOutput> | Error;

/** A PutEvents client that records each call's entries and answers as `answer` says. */
function fakeEventBridge(answer: Answer = (entries) => ({ FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `e${i}` })) })) {
  const calls: PutEventsRequestEntry[][] = [];
  const client = {
    send: async (command: { input: { Entries?: PutEventsRequestEntry[] } }) => {
      const entries = command.input.Entries ?? [];
      calls.push(entries);
      const reply = answer(entries, calls.length);
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  const delays: number[] = [];
  const publisher = makeEventBridgePublisher({
    busName: BUS,
    client: async () => client,
    logger: silentLogger,
    retryOptions: { sleep: async (ms) => void delays.push(ms) },
  });
  return { publisher, calls, delays };
}

const detailIds = (entries: PutEventsRequestEntry[]) => entries.map((entry) => (JSON.parse(entry.Detail!) as ServiceEvent).id);

describe('EventBridge event publisher', () => {
  it('puts each event on the bus with the source the rule matches, its type as detail-type and itself as detail', async () => {
    const { publisher, calls } = fakeEventBridge();
    const event = finished(1);

    await publisher.publish([event]);

    expect(calls).toEqual([
      [{ EventBusName: BUS, Source: EVENT_SOURCE, DetailType: 'scan.finished', Detail: JSON.stringify(event), Time: new Date(AT) }],
    ]);
  });

  it('sends at most ten entries per PutEvents call, each event once', async () => {
    const { publisher, calls } = fakeEventBridge();
    const events = Array.from({ length: 23 }, (_, i) => finished(i));

    await publisher.publish(events);

    expect(calls.map((entries) => entries.length).sort()).toEqual([10, 10, 3].sort());
    expect(calls.flatMap(detailIds).sort()).toEqual(events.map((event) => event.id).sort());
  });

  it(`keeps at most ${PUBLISH_CONCURRENCY} calls in flight`, async () => {
    let inFlight = 0;
    let most = 0;
    const client = {
      send: async (command: { input: { Entries: PutEventsRequestEntry[] } }) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        // Answered on a later turn of the event loop, so the calls overlap as they would on the network.
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return { FailedEntryCount: 0, Entries: command.input.Entries.map(() => ({ EventId: 'ok' })) };
      },
    };
    const publisher = makeEventBridgePublisher({ busName: BUS, client: async () => client, logger: silentLogger });

    await publisher.publish(Array.from({ length: 101 }, (_, i) => finished(i)));

    expect(most).toBe(PUBLISH_CONCURRENCY);
  });

  it('starts a new call before a batch would pass 256 KiB', async () => {
    const { publisher, calls } = fakeEventBridge();
    // Each entry a little over 60 KiB: four fit in 256 KiB, a fifth does not.
    const events = Array.from({ length: 6 }, (_, i) => finished(i, 'x'.repeat(60 * 1024)));

    await publisher.publish(events);

    expect(calls.map((entries) => entries.length).sort()).toEqual([4, 2].sort());
    for (const entries of calls) expect(entries.reduce((sum, entry) => sum + entrySize(entry), 0)).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
  });

  it('sends again only the entries refused with a retryable code, with backoff, until they are accepted', async () => {
    const { publisher, calls, delays } = fakeEventBridge((entries, call) =>
      call === 1
        ? {
            FailedEntryCount: 2,
            Entries: [
              { EventId: 'a' },
              { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' },
              { EventId: 'c' },
              { ErrorCode: 'InternalFailure', ErrorMessage: 'oops' },
            ],
          }
        : { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `r${i}` })) },
    );
    const events = [finished(1), finished(2), finished(3), finished(4)];

    await publisher.publish(events);

    expect(calls.map(detailIds)).toEqual([events.map((event) => event.id), [events[1].id, events[3].id]]);
    expect(delays).toHaveLength(1);
  });

  it('throws naming the events still refused after the last attempt, having tried every batch', async () => {
    const { publisher, calls } = fakeEventBridge((entries) => ({
      FailedEntryCount: 1,
      Entries: entries.map((entry) =>
        (JSON.parse(entry.Detail!) as ServiceEvent).id === finished(3).id ? { ErrorCode: 'ThrottlingException' } : { EventId: 'ok' },
      ),
    }));
    const events = Array.from({ length: 12 }, (_, i) => finished(i));

    const error = await publisher.publish(events).catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(EventsNotPublishedError);
    expect((error as EventsNotPublishedError).failures).toEqual([{ event_id: finished(3).id, code: 'ThrottlingException' }]);
    expect((error as Error).message).toBe('1 of 12 events not published (ThrottlingException)');
    // The first batch three times (the refused entry alone after the first), the second batch once.
    expect(calls.map((entries) => entries.length).sort()).toEqual([10, 1, 1, 2].sort());
  });

  it('does not send again an entry refused with a code that fails the same way every time', async () => {
    const { publisher, calls } = fakeEventBridge((entries) => ({
      FailedEntryCount: 1,
      Entries: entries.map((_, i) => (i === 0 ? { ErrorCode: 'MalformedDetail', ErrorMessage: 'bad' } : { EventId: 'ok' })),
    }));

    const error = await publisher.publish([finished(1), finished(2)]).catch((thrown: unknown) => thrown);

    expect((error as EventsNotPublishedError).failures).toEqual([{ event_id: finished(1).id, code: 'MalformedDetail' }]);
    expect(calls).toHaveLength(1);
  });

  it('reports an event over the call limit without sending it, and still sends the others', async () => {
    const { publisher, calls } = fakeEventBridge();
    const huge = finished(1, 'x'.repeat(MAX_BYTES_PER_CALL));

    const error = await publisher.publish([huge, finished(2)]).catch((thrown: unknown) => thrown);

    expect((error as EventsNotPublishedError).failures).toEqual([{ event_id: huge.id, code: 'EntryTooLarge' }]);
    expect(calls.map(detailIds)).toEqual([[finished(2).id]]);
  });

  it('reports every entry of a call that failed outright by the error, and goes on with the next batch', async () => {
    const refused = Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
    const { publisher, calls } = fakeEventBridge((entries, call) =>
      call === 1 ? refused : { FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: 'ok' })) },
    );
    const events = Array.from({ length: 11 }, (_, i) => finished(i));

    const error = await publisher.publish(events).catch((thrown: unknown) => thrown);

    expect((error as EventsNotPublishedError).failures).toEqual(
      events.slice(0, 10).map((event) => ({ event_id: event.id, code: 'AccessDeniedException' })),
    );
    expect(calls.map((entries) => entries.length).sort()).toEqual([10, 1].sort());
  });

  it('makes no call for no events', async () => {
    const { publisher, calls } = fakeEventBridge();

    await publisher.publish([]);

    expect(calls).toEqual([]);
  });
});

describe('the dispatch composition publishes to the bus EVENT_BUS_NAME names', () => {
  it('publishes to that bus when the variable is set', async () => {
    const calls: PutEventsRequestEntry[][] = [];
    const client = async () =>
      ({
        send: async (command: { input: { Entries: PutEventsRequestEntry[] } }) => {
          calls.push(command.input.Entries);
          return { FailedEntryCount: 0, Entries: command.input.Entries.map(() => ({ EventId: 'ok' })) };
        },
      }) as never;

    await eventPublisherOf('the-bus', silentLogger, client).publish([finished(1)]);

    expect(calls.flat().map((entry) => entry.EventBusName)).toEqual(['the-bus']);
  });

  it('publishes nowhere without it (the dead-letter function)', () => {
    expect(eventPublisherOf(undefined, silentLogger)).toBe(noEvents);
  });
});
