import { describe, expect, it } from 'vitest';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { LocalQueueConsumer } from '../../local/queue-consumer.ts';

function queueOf(count: number): Promise<LocalQueue> {
  const queue = new LocalQueue({ name: 'scan', clock: new ManualClock('2026-03-01T00:00:00Z'), visibilityTimeoutMs: 30_000 });
  return Promise.all(Array.from({ length: count }, (_, i) => queue.send({ kind: 'scan', tenant: 'acme', scan_id: `scan_${i}` }))).then(
    () => queue,
  );
}

/** A handler that holds every message until the test lets it go, recording how many it holds at once. */
function heldHandler() {
  const held: (() => void)[] = [];
  const seen: string[] = [];
  let inFlight = 0;
  let peak = 0;
  const handler = (event: SQSEvent) =>
    new Promise<SQSBatchResponse>((resolve) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      for (const record of event.Records) seen.push((JSON.parse(record.body) as { scan_id: string }).scan_id);
      held.push(() => {
        inFlight -= 1;
        resolve({ batchItemFailures: [] });
      });
    });
  return { handler, held, seen, stats: () => ({ inFlight, peak }) };
}

async function releaseAll(held: (() => void)[], done: () => boolean): Promise<void> {
  while (!done()) {
    if (held.length > 0) held.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('LocalQueueConsumer', () => {
  it('handles up to `concurrency` batches at once and each message exactly once', async () => {
    const queue = await queueOf(10);
    const { handler, held, seen, stats } = heldHandler();
    const consumer = new LocalQueueConsumer(queue, handler, { functionTimeoutMs: 1_000, concurrency: 3 });

    let finished = false;
    const drained = consumer.drain().then((count) => {
      finished = true;
      return count;
    });
    while (stats().inFlight < 3) await new Promise((resolve) => setImmediate(resolve));
    await releaseAll(held, () => finished);

    expect(await drained).toBe(10);
    expect(stats().peak).toBe(3);
    expect([...seen].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `scan_${i}`).sort());
    expect(queue.stats()).toMatchObject({ visible: 0, inFlight: 0 });
  });

  it('handles one batch at a time by default', async () => {
    const queue = await queueOf(4);
    const { handler, held, stats } = heldHandler();
    const consumer = new LocalQueueConsumer(queue, handler, { functionTimeoutMs: 1_000 });

    let finished = false;
    const drained = consumer.drain().then(() => {
      finished = true;
    });
    await releaseAll(held, () => finished);
    await drained;

    expect(stats().peak).toBe(1);
  });
});
