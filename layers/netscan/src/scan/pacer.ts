import { sleep } from '../../../../lib/retry.ts';

/** Time as the pacer sees it; tests pass a manual clock. */
export interface PacerClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: PacerClock = {
  now: () => performance.now(),
  sleep,
};

/**
 * Spaces connection attempts `1000 / rate` ms apart: each caller takes the next slot and waits for
 * it. A caller that finds its slot already past may go at once, but slots never run more than
 * `burstMs` behind the clock, so over any interval T at most rate × (T + burstMs) / 1000 + 1
 * attempts start: a slow moment (every socket in flight busy, a timer that fired late) can be
 * made up by at most `burstMs` of attempts, never by a burst of everything missed. Without that
 * allowance, timers' millisecond granularity keeps a rate above 1000/s well under its cap.
 */
export function makePacer(rate: number, clock: PacerClock = systemClock, burstMs = 10): { wait(signal?: AbortSignal): Promise<void> } {
  const interval = 1000 / rate;
  let next = -Infinity;
  return {
    async wait(signal) {
      const now = clock.now();
      const slot = Math.max(now - burstMs, next);
      next = slot + interval;
      if (slot > now) await clock.sleep(slot - now, signal);
    },
  };
}
