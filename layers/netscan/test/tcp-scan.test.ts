import { describe, expect, it } from 'vitest';
import type { PacerClock } from '../src/scan/pacer.ts';
import { scanTcp, type ConnectOutcome } from '../src/scan/tcp-scan.ts';

/** Virtual time: the earliest sleeper wakes next and the clock jumps to its time, so a test never waits. */
function virtualClock(): PacerClock {
  let time = 0;
  const sleepers: { at: number; wake: () => void }[] = [];
  const pump = (): void => {
    sleepers.sort((a, b) => a.at - b.at);
    const next = sleepers.shift();
    if (!next) return;
    time = Math.max(time, next.at);
    next.wake();
  };
  return {
    now: () => time,
    sleep: (ms) =>
      new Promise<void>((wake) => {
        sleepers.push({ at: time + ms, wake });
        setImmediate(pump);
      }),
  };
}

describe('scanTcp', () => {
  it('tells open, closed and filtered apart and lists the open ports', async () => {
    const states: Record<string, ConnectOutcome> = {
      'a:22': { state: 'open' },
      'b:80': { state: 'open' },
      'a:80': { state: 'closed' },
      'b:22': { state: 'filtered' },
    };
    const result = await scanTcp({
      addresses: ['a', 'b'],
      ports: [22, 80, 443],
      rate: 1000,
      maxInFlight: 4,
      connectTimeoutMs: 100,
      signal: new AbortController().signal,
      attempt: async (address, port) => states[`${address}:${port}`] ?? { state: 'closed' },
      clock: virtualClock(),
    });
    expect(result.open).toEqual([
      { address: 'a', port: 22 },
      { address: 'b', port: 80 },
    ]);
    expect(result.counts).toEqual({ open: 2, closed: 3, filtered: 1, error: 0, not_attempted: 0 });
  });

  it('spaces attempts 1000/rate ms apart and tries ports outermost', async () => {
    const clock = virtualClock();
    const attempts: { at: number; address: string; port: number }[] = [];
    await scanTcp({
      addresses: ['a', 'b'],
      ports: [1, 2, 3],
      rate: 50,
      maxInFlight: 3,
      connectTimeoutMs: 100,
      signal: new AbortController().signal,
      attempt: async (address, port) => {
        attempts.push({ at: clock.now(), address, port });
        return { state: 'closed' };
      },
      clock,
    });
    expect(attempts.map((a) => `${a.address}${a.port}`)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    // The k-th attempt starts no earlier than k intervals after the first, less the 10 ms burst allowance.
    for (let k = 1; k < attempts.length; k += 1) expect(attempts[k].at - attempts[0].at).toBeGreaterThanOrEqual(k * 20 - 10);
    expect(attempts.at(-1)!.at - attempts[0].at).toBeLessThanOrEqual(5 * 20);
  });

  it('never has more than maxInFlight attempts connecting at once', async () => {
    const pending: (() => void)[] = [];
    let current = 0;
    let peak = 0;
    const run = scanTcp({
      addresses: ['a'],
      ports: Array.from({ length: 40 }, (_, i) => i + 1),
      rate: 1_000_000,
      maxInFlight: 5,
      connectTimeoutMs: 100,
      signal: new AbortController().signal,
      attempt: () =>
        new Promise<ConnectOutcome>((resolve) => {
          current += 1;
          peak = Math.max(peak, current);
          pending.push(() => {
            current -= 1;
            resolve({ state: 'filtered' });
          });
        }),
      clock: virtualClock(),
    });
    let settled = false;
    void run.finally(() => (settled = true));
    while (!settled) {
      await new Promise((resolve) => setImmediate(resolve));
      pending.splice(0).forEach((release) => release());
    }
    const result = await run;
    expect(peak).toBe(5);
    expect(result.peakInFlight).toBe(5);
    expect(result.counts.filtered).toBe(40);
  });

  it('starts nothing after the deadline and counts what it left untried', async () => {
    const deadline = new AbortController();
    let tried = 0;
    const result = await scanTcp({
      addresses: ['a'],
      ports: Array.from({ length: 10 }, (_, i) => i + 1),
      rate: 1000,
      maxInFlight: 1,
      connectTimeoutMs: 100,
      signal: deadline.signal,
      attempt: async () => {
        tried += 1;
        if (tried === 3) deadline.abort();
        return { state: 'closed' };
      },
      clock: virtualClock(),
    });
    expect(result.counts.closed).toBe(2);
    expect(result.counts.not_attempted).toBe(8);
  });

  it('keeps errors apart from port states', async () => {
    const result = await scanTcp({
      addresses: ['a'],
      ports: [1, 2],
      rate: 1000,
      maxInFlight: 2,
      connectTimeoutMs: 100,
      signal: new AbortController().signal,
      attempt: async (_address, port) => (port === 1 ? { error: 'EMFILE: too many open files' } : { state: 'open' }),
      clock: virtualClock(),
    });
    expect(result.errors).toEqual([{ address: 'a', port: 1, message: 'EMFILE: too many open files' }]);
    expect(result.counts).toMatchObject({ open: 1, error: 1 });
  });
});
