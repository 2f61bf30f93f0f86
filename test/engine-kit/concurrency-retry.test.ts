import { describe, expect, it } from 'vitest';
import { mapBounded, settledOnly } from '../../lib/concurrency.ts';
import { backoffDelay, retry } from '../../lib/retry.ts';

describe('mapBounded', () => {
  it('keeps the input order and never has more than `limit` calls in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const run = mapBounded([5, 1, 4, 2, 3], 2, async (item, index) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight -= 1;
      return `${index}:${item}`;
    });
    while (gates.length > 0 || inFlight > 0) {
      await Promise.resolve();
      gates.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await run).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3']);
    expect(peak).toBe(2);
  });

  it('starts nothing new once the signal aborts and leaves those slots empty', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const results = await mapBounded(
      [0, 1, 2, 3, 4],
      1,
      async (item) => {
        started.push(item);
        if (item === 1) controller.abort();
        return item * 10;
      },
      { signal: controller.signal },
    );
    expect(started).toEqual([0, 1]);
    expect(settledOnly(results)).toEqual([0, 10]);
  });

  it('rejects with the first failure after the calls in flight settle, and starts no more', async () => {
    const started: number[] = [];
    await expect(
      mapBounded([0, 1, 2, 3], 2, async (item) => {
        started.push(item);
        if (item === 0) throw new Error('first');
        return item;
      }),
    ).rejects.toThrow('first');
    expect(started).toEqual([0, 1]);
  });

  it('handles an empty list and a silly limit', async () => {
    expect(await mapBounded([], 0, async () => 1)).toEqual([]);
    expect(await mapBounded([1, 2], 0, async (x) => x + 1)).toEqual([2, 3]);
  });
});

describe('retry', () => {
  it('retries until success with full-jitter delays under the doubling ceiling', async () => {
    const delays: number[] = [];
    let calls = 0;
    const value = await retry(
      async (attempt) => {
        calls += 1;
        if (attempt < 4) throw new Error(`fail ${attempt}`);
        return 'ok';
      },
      { attempts: 5, baseMs: 100, maxMs: 250, random: () => 0.999, sleep: async (ms) => void delays.push(ms) },
    );
    expect(value).toBe('ok');
    expect(calls).toBe(4);
    expect(delays).toEqual([99, 199, 249]);
  });

  it('throws the last error when attempts run out, and at once when not retryable', async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls += 1;
          throw new Error(`call ${calls}`);
        },
        { attempts: 3, baseMs: 1, maxMs: 1, sleep: async () => {} },
      ),
    ).rejects.toThrow('call 3');
    calls = 0;
    await expect(
      retry(
        async () => {
          calls += 1;
          throw new Error('fatal');
        },
        { attempts: 3, baseMs: 1, maxMs: 1, retryable: (error) => (error as Error).message !== 'fatal', sleep: async () => {} },
      ),
    ).rejects.toThrow('fatal');
    expect(calls).toBe(1);
  });

  it('stops when the signal aborts during a wait', async () => {
    const controller = new AbortController();
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls += 1;
          throw new Error('down');
        },
        { attempts: 10, baseMs: 10, maxMs: 10, signal: controller.signal, sleep: async () => controller.abort() },
      ),
    ).rejects.toThrow('down');
    expect(calls).toBe(1);
  });

  it('backoffDelay doubles up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, { baseMs: 10, maxMs: 50 }, () => 0.5))).toEqual([5, 10, 20, 25, 25]);
  });
});
