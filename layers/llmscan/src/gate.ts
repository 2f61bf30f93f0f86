/**
 * What the tenant pays for is bounded here: every request (retries included) passes this gate,
 * which refuses the one past `max_requests`, spaces requests at least 1/`rate` seconds apart, and
 * after a 429 lets nothing go to that origin before its Retry-After. Time comes from a clock port,
 * so tests run it on a virtual clock without sleeping.
 */
import { sleep as realSleep } from '../../../lib/retry.ts';

export interface Clock {
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: realSleep };

/** The time left for the scan (the kit's Deadline is one). */
export interface TimeLeft {
  remainingMs(): number;
  readonly signal: AbortSignal;
}

/** `max_requests` is spent: nothing more is sent. */
export class BudgetSpent extends Error {
  override readonly name = 'BudgetSpent';
}

/** The next request could only go after the scan's deadline (a Retry-After beyond it, or the rate). */
export class WaitPastDeadline extends Error {
  override readonly name = 'WaitPastDeadline';
}

export class RequestGate {
  /** Requests sent, retries included. */
  sent = 0;
  private last = Number.NEGATIVE_INFINITY;
  private readonly notBefore = new Map<string, number>();
  private turn: Promise<void> = Promise.resolve();

  constructor(private readonly options: { maxRequests: number; rate: number; clock: Clock; time: TimeLeft }) {}

  /**
   * Waits for this request's turn and counts it as sent. Turns are taken one at a time, so two
   * requests are never closer than 1/rate seconds, however many attempts run at once.
   */
  acquire(origin: string): Promise<void> {
    const mine = this.turn.then(() => this.wait(origin));
    this.turn = mine.catch(() => {});
    return mine;
  }

  /** A 429 said `Retry-After`: nothing goes to `origin` before `until` (clock ms). */
  backOff(origin: string, until: number): void {
    this.notBefore.set(origin, Math.max(this.notBefore.get(origin) ?? 0, until));
  }

  private async wait(origin: string): Promise<void> {
    const { clock, time, maxRequests, rate } = this.options;
    if (this.sent >= maxRequests) throw new BudgetSpent(`max_requests (${maxRequests}) reached`);
    for (;;) {
      const now = clock.now();
      const at = Math.max(now, this.last + 1000 / rate, this.notBefore.get(origin) ?? 0);
      if (at - now > time.remainingMs()) {
        throw new WaitPastDeadline(
          (this.notBefore.get(origin) ?? 0) > now
            ? `the endpoint asked to wait ${Math.ceil(((this.notBefore.get(origin) ?? 0) - now) / 1000)} s (Retry-After), past the scan's deadline`
            : "the next request's turn comes after the scan's deadline",
        );
      }
      if (at <= now) break;
      await clock.sleep(at - now, time.signal);
      if (time.signal.aborted) throw new WaitPastDeadline("the scan's deadline passed");
    }
    this.last = clock.now();
    this.sent += 1;
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
