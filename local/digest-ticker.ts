import type { Clock } from '../shared/ports/clock.ts';
import { dueDigestPeriods, type NotificationDelivery } from '../shared/services/notification-delivery.ts';

/**
 * `npm start`'s counterpart of the stack's hourly digest schedule (infra/constructs/notifications.ts):
 * `tick()` asks the clock, and once per hour end (DIGEST_GRACE_MS after it, as the schedule fires
 * at five past) has the notifier send the digests due, exactly as the schedule's invocation does.
 * The first tick after a start flushes at once, so digests that fell due while the process was
 * down go out. Ticks are serialised, so the timer and a direct call never flush an hour twice.
 */
export class LocalDigestTicker {
  readonly #clock: Clock;
  readonly #delivery: Pick<NotificationDelivery, 'flushDue'>;
  readonly #onError: (error: unknown) => void;
  /** The newest hour end flushed; null until the first tick. */
  #flushedThrough: string | null = null;
  #running: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { clock: Clock; delivery: Pick<NotificationDelivery, 'flushDue'>; onError: (error: unknown) => void }) {
    this.#clock = options.clock;
    this.#delivery = options.delivery;
    this.#onError = options.onError;
  }

  /** Flushes if an hour end became due since the last flush; what it sent, or null when nothing fell due. */
  tick(): Promise<{ sent: number; events: number } | null> {
    const run = this.#running.then(
      () => this.#flushIfDue(),
      () => this.#flushIfDue(),
    );
    this.#running = run;
    return run;
  }

  async #flushIfDue(): Promise<{ sent: number; events: number } | null> {
    const at = this.#clock.now().toISOString();
    const through = dueDigestPeriods(at).at(-1)!;
    if (this.#flushedThrough === through) return null;
    // Marked before sending: a failure is sent again by the next hour's flush (it looks back a
    // day), as in AWS, rather than every minute.
    this.#flushedThrough = through;
    const { sent, events } = await this.#delivery.flushDue(at);
    return { sent, events };
  }

  /** Ticks every `intervalMs` (a minute) until {@link stop}; the timer does not keep the process alive. */
  start(intervalMs = 60_000): void {
    if (this.#timer !== undefined) return;
    this.tick().catch(this.#onError);
    this.#timer = setInterval(() => {
      this.tick().catch(this.#onError);
    }, intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
