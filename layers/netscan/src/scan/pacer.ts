/** Time as the pacer sees it; tests pass a manual clock. */
export interface PacerClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: PacerClock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/**
 * Spaces connection attempts `1000 / rate` ms apart, never in bursts: each caller takes the next
 * slot and waits for it. A slow pool (every socket in flight busy) does not bank slots to spend
 * later in a burst, so the rate is an upper bound at every moment.
 */
export function makePacer(rate: number, clock: PacerClock = systemClock): { wait(signal?: AbortSignal): Promise<void> } {
  const interval = 1000 / rate;
  let next = -Infinity;
  return {
    async wait(signal) {
      const now = clock.now();
      const slot = Math.max(now, next);
      next = slot + interval;
      if (slot > now) await clock.sleep(slot - now, signal);
    },
  };
}
