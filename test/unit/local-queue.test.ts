import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { DispatchFailedError } from '../../shared/domain/errors.ts';
import type { QueueMessage } from '../../shared/domain/messages.ts';
import { ManualClock } from '../fakes/manual-clock.ts';

const START = '2025-03-01T00:00:00.000Z';
const SCAN: QueueMessage = { kind: 'scan', tenant: 'acme', scan_id: 'scan_01A' };
const FIRE: QueueMessage = {
  kind: 'fire',
  tenant: 'acme',
  schedule_id: 'sch_01A',
  scheduled_time: '2025-03-01T02:00:00Z',
  execution_id: 'e-1',
};

function makeQueues(options: { maxReceiveCount?: number } = {}) {
  const clock = new ManualClock(START);
  const deadLetterQueue = new LocalQueue({ name: 'scan-dlq', clock, visibilityTimeoutMs: 30_000 });
  const queue = new LocalQueue({ name: 'scan', clock, visibilityTimeoutMs: 30_000, deadLetterQueue, ...options });
  return { clock, queue, deadLetterQueue };
}

describe('LocalQueue', () => {
  it('delivers a sent message as its JSON body with receive count 1', async () => {
    const { queue } = makeQueues();

    await queue.send(FIRE);
    const received = queue.receive();

    expect(received).toEqual([
      {
        messageId: 'scan-1',
        receiptHandle: expect.any(String),
        body: '{"kind":"fire","tenant":"acme","schedule_id":"sch_01A","scheduled_time":"2025-03-01T02:00:00Z","execution_id":"e-1"}',
        receiveCount: 1,
        sentAt: new Date(START),
        resourceClass: 'standard',
      },
    ]);
  });

  it("keeps the resource class a message was sent with, through redrive, and hides it for its class's visibility", async () => {
    const clock = new ManualClock(START);
    const deadLetterQueue = new LocalQueue({ name: 'scan-dlq', clock, visibilityTimeoutMs: 30_000 });
    const queue = new LocalQueue({
      name: 'scan',
      clock,
      visibilityTimeoutMs: 30_000,
      visibilityTimeoutMsByClass: { long: 90_000 },
      maxReceiveCount: 1,
      deadLetterQueue,
    });
    await queue.send(SCAN, 'long');
    await queue.send(FIRE);

    expect(queue.receive().map((message) => message.resourceClass)).toEqual(['long', 'standard']);
    clock.advance(30_000);
    expect(queue.stats()).toEqual({ visible: 1, inFlight: 1 });
    clock.advance(60_000);
    expect(queue.receive()).toEqual([]);
    expect(deadLetterQueue.receive().map((message) => [message.body, message.resourceClass])).toEqual([
      [JSON.stringify(FIRE), 'standard'],
      [JSON.stringify(SCAN), 'long'],
    ]);
  });

  it('hides a received message until the visibility timeout passes', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    queue.receive();

    clock.advance(29_999);

    expect(queue.receive()).toEqual([]);
    expect(queue.stats()).toEqual({ visible: 0, inFlight: 1 });
  });

  it('redelivers after the visibility timeout with a new receipt handle and a higher receive count', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    const [first] = queue.receive();

    clock.advance(30_000);
    const [second] = queue.receive();

    expect(second).toMatchObject({ messageId: first.messageId, receiveCount: 2 });
    expect(second.receiptHandle).not.toBe(first.receiptHandle);
  });

  it('acknowledges a message on delete so it never comes back', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    const [message] = queue.receive();

    const deleted = queue.delete(message.receiptHandle);
    clock.advance(60_000);

    expect(deleted).toBe(true);
    expect(queue.receive()).toEqual([]);
    expect(queue.stats()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('refuses a stale receipt handle once the message is received again', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    const [first] = queue.receive();
    clock.advance(30_000);
    const [second] = queue.receive();

    expect(queue.delete(first.receiptHandle)).toBe(false);
    expect(queue.changeVisibility(first.receiptHandle, 0)).toBe(false);
    expect(queue.delete(second.receiptHandle)).toBe(true);
  });

  it('accepts the latest receipt handle after the timeout while nobody has received the message again', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    const [message] = queue.receive();
    clock.advance(45_000);

    expect(queue.delete(message.receiptHandle)).toBe(true);
  });

  it('refuses an unknown receipt handle', () => {
    const { queue } = makeQueues();

    expect(queue.delete('made-up')).toBe(false);
  });

  it('extends the visibility of an in-flight message, and a zero timeout releases it at once', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    await queue.send(FIRE);
    const [scan, fire] = queue.receive();

    const extended = queue.changeVisibility(scan.receiptHandle, 120_000);
    const released = queue.changeVisibility(fire.receiptHandle, 0);
    clock.advance(30_000);

    expect([extended, released]).toEqual([true, true]);
    expect(queue.receive().map((message) => message.messageId)).toEqual([fire.messageId]);
  });

  it('does not change the visibility of a message that is no longer in flight', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    const [message] = queue.receive();
    clock.advance(30_000);

    expect(queue.changeVisibility(message.receiptHandle, 10_000)).toBe(false);
  });

  it('moves a message to the DLQ instead of delivering it past maxReceiveCount', async () => {
    const { clock, queue, deadLetterQueue } = makeQueues({ maxReceiveCount: 2 });
    await queue.send(SCAN);
    queue.receive();
    clock.advance(30_000);
    queue.receive();
    clock.advance(30_000);

    const third = queue.receive();

    expect(third).toEqual([]);
    expect(queue.stats()).toEqual({ visible: 0, inFlight: 0 });
    expect(deadLetterQueue.receive()).toEqual([
      {
        messageId: 'scan-1',
        receiptHandle: expect.any(String),
        body: '{"kind":"scan","tenant":"acme","scan_id":"scan_01A"}',
        receiveCount: 1,
        sentAt: new Date(START),
        resourceClass: 'standard',
      },
    ]);
  });

  it('keeps filling a receive after moving a message to the DLQ', async () => {
    const { clock, queue, deadLetterQueue } = makeQueues({ maxReceiveCount: 1 });
    await queue.send(SCAN);
    queue.receive();
    clock.advance(30_000);
    await queue.send(FIRE);

    const received = queue.receive();

    expect(received.map((message) => message.messageId)).toEqual(['scan-2']);
    expect(deadLetterQueue.stats()).toEqual({ visible: 1, inFlight: 0 });
  });

  it('returns the oldest visible messages first, at most maxMessages of them', async () => {
    const { clock, queue } = makeQueues();
    for (const scanId of ['scan_1', 'scan_2', 'scan_3']) {
      await queue.send({ kind: 'scan', tenant: 'acme', scan_id: scanId });
      clock.advance(1_000);
    }

    const firstTwo = queue.receive(2);
    const rest = queue.receive(10);

    expect(firstTwo.map((message) => message.messageId)).toEqual(['scan-1', 'scan-2']);
    expect(rest.map((message) => message.messageId)).toEqual(['scan-3']);
  });

  it('orders a redelivered message by when it became visible again', async () => {
    const { clock, queue } = makeQueues();
    await queue.send(SCAN);
    queue.receive();
    clock.advance(10_000);
    await queue.send(FIRE);
    clock.advance(20_000);

    const received = queue.receive();

    expect(received.map((message) => message.messageId)).toEqual(['scan-2', 'scan-1']);
  });

  it('throws DispatchFailedError and stores nothing while refusing, and accepts again when cleared', async () => {
    const { queue } = makeQueues();
    queue.setRefusing('chaos: queue offline');

    await expect(queue.send(SCAN)).rejects.toThrow(new DispatchFailedError('local queue scan refused the message: chaos: queue offline'));
    expect(() => queue.sendRaw('{}')).toThrow(DispatchFailedError);
    expect(queue.stats()).toEqual({ visible: 0, inFlight: 0 });

    queue.setRefusing(null);
    await queue.send(SCAN);
    expect(queue.stats()).toEqual({ visible: 1, inFlight: 0 });
  });

  it('rejects a message outside the QueueMessage schema and stores nothing', async () => {
    const { queue } = makeQueues();

    await expect(queue.send({ kind: 'scan', tenant: 'acme' } as unknown as QueueMessage)).rejects.toBeInstanceOf(ZodError);

    expect(queue.stats()).toEqual({ visible: 0, inFlight: 0 });
  });

  it('stores a raw body unchecked so tests can plant a poison message', () => {
    const { queue } = makeQueues();

    const messageId = queue.sendRaw('not json');

    expect(queue.receive()).toMatchObject([{ messageId, body: 'not json' }]);
  });

  it('rejects a receive of more than 10 messages, like SQS', () => {
    const { queue } = makeQueues();

    expect(() => queue.receive(11)).toThrow(RangeError);
  });

  it('requires a dead-letter queue when maxReceiveCount is set', () => {
    const clock = new ManualClock(START);

    expect(() => new LocalQueue({ name: 'scan', clock, visibilityTimeoutMs: 30_000, maxReceiveCount: 3 })).toThrow(
      'maxReceiveCount needs a deadLetterQueue',
    );
  });
});
