/**
 * DESIGN §21: connection starts to one RDP port at least 200 ms apart. One pacer per port; every
 * connection to it (vdiscan's negotiations and tlsscan's probes on the TLS layer) awaits `next()`.
 */
export class Pacer {
  private nextAt = 0;
  constructor(
    private readonly intervalMs: number,
    private readonly clock: () => number = Date.now,
    private readonly signal?: AbortSignal,
  ) {}

  /** Resolves when this connection may start (the slot is taken at once, so callers queue up). */
  next(): Promise<void> {
    const now = this.clock();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + this.intervalMs;
    const wait = at - now;
    if (wait <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(done, wait);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new Error('the scan was stopped'));
      };
      function done(): void {
        signalRef?.removeEventListener('abort', onAbort);
        resolve();
      }
      const signalRef = this.signal;
      if (signalRef?.aborted) return onAbort();
      signalRef?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
