/** The scan's deadline was reached before this part finished. */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor(what: string) {
    super(`${what}: the scan's deadline passed`);
  }
}

/**
 * A scan's time budget. `signal` aborts when it runs out (or the parent's does); `within` bounds one
 * step; `child` gives a step a shorter budget inside the same deadline. Every engine ends at its
 * deadline with a partial report instead of hanging (DESIGN §11).
 */
export class Deadline {
  readonly signal: AbortSignal;
  private readonly endsAt: number;

  constructor(
    ms: number,
    private readonly clock: () => number = Date.now,
    parent?: AbortSignal,
  ) {
    this.endsAt = clock() + Math.max(0, ms);
    const own = AbortSignal.timeout(Math.max(1, Math.ceil(ms)));
    this.signal = parent ? AbortSignal.any([own, parent]) : own;
  }

  remainingMs(): number {
    return this.signal.aborted ? 0 : Math.max(0, this.endsAt - this.clock());
  }

  expired(): boolean {
    return this.remainingMs() <= 0;
  }

  /** A budget of at most `ms` that also ends with this one. */
  child(ms: number): Deadline {
    return new Deadline(Math.min(ms, this.remainingMs()), this.clock, this.signal);
  }

  /** `promise`, or a DeadlineExceeded rejection when the deadline passes first. */
  within<T>(promise: Promise<T>, what: string): Promise<T> {
    if (this.signal.aborted) {
      promise.catch(() => {});
      return Promise.reject(new DeadlineExceeded(what));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new DeadlineExceeded(what));
      this.signal.addEventListener('abort', onAbort, { once: true });
      promise.finally(() => this.signal.removeEventListener('abort', onAbort)).then(resolve, reject);
    });
  }
}
