/**
 * The repository's one retry loop: exponential backoff with full jitter (a delay drawn uniformly
 * from [0, min(maxMs, baseMs · 2^(retry-1)))), so callers throttled together do not retry in step.
 * DynamoDB batch leftovers, Scheduler throttling, notification delivery and engine probes use it.
 */
export interface RetryOptions {
  /** Calls in all, the first included (≥ 1). */
  attempts: number;
  /** Delay ceiling before the first retry; doubles with each further retry. */
  baseMs: number;
  /** Upper bound on any single delay. */
  maxMs: number;
  /** Whether a failure may succeed when repeated; everything is retried by default. */
  retryable?: (error: unknown, attempt: number) => boolean;
  /** Waits `ms`; injected by tests so they never sleep. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1); injected by tests. */
  random?: () => number;
  /** Aborting stops further attempts: the last error is thrown. */
  signal?: AbortSignal;
  /** Told before each retry (after the failure of `attempt`, 1-based), e.g. to log or count. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/** Delay before retry number `retry` (1 = the first retry). */
export function backoffDelay(retry: number, options: Pick<RetryOptions, 'baseMs' | 'maxMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Calls `fn(attempt)` until it resolves, a failure is not retryable, attempts run out, or `signal` aborts. */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const wait = options.sleep ?? sleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn(attempt);
    } catch (error) {
      const last = attempt >= Math.max(1, options.attempts) || options.signal?.aborted;
      if (last || (options.retryable && !options.retryable(error, attempt))) throw error;
      const delay = backoffDelay(attempt, options, random);
      options.onRetry?.(error, attempt, delay);
      await wait(delay, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}
