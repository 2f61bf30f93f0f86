/**
 * A discrete-event model of the 02:00 herd: N schedule fires due at one instant, delivered by
 * EventBridge Scheduler onto the scan queue and drained by the dispatch function through its SQS
 * event source. Pure and deterministic (seeded): the same inputs give the same figures.
 *
 * What it models, and the AWS behaviour each part stands for (docs/scale.md cites the sources):
 * - Scheduler delivery: invocations beyond the account's invocation throttle are delayed, not
 *   dropped; a fire still undelivered after the target's MaximumEventAgeInSeconds goes to the
 *   scheduler DLQ. A FLEXIBLE time window spreads each fire uniformly over the window.
 * - The event source: at most `maxConcurrency` invocations at once, ramped up from 5 by
 *   `scaleUpPerMinute`; batch size 1. When the account has less free concurrency than the event
 *   source may use, the invocations beyond it are throttled: the message was received (a receive is
 *   spent) and becomes visible again only after the visibility timeout.
 * - SQS: a message received more than `maxReceiveCount` times moves to the scan DLQ; a message
 *   older than the retention period is deleted.
 * - The function: a scan longer than the timeout fails and its message comes back after the
 *   visibility timeout. Billed time is the scan's duration, capped at the timeout.
 */

export interface HerdSettings {
  /** Event source MaximumConcurrency (cdk.json `dispatch.maxConcurrency`). */
  maxConcurrency: number;
  /** Concurrency the account can actually give dispatch (unreserved concurrency minus other functions' use). */
  accountConcurrency: number;
  /** How fast the event source adds concurrent invocations. */
  scaleUpPerMinute: number;
  functionTimeoutS: number;
  memoryMb: number;
  visibilityTimeoutS: number;
  maxReceiveCount: number;
  retentionS: number;
  /** EventBridge Scheduler invocations per second before it delays them. */
  schedulerInvocationTps: number;
  /** The schedule target's RetryPolicy.MaximumEventAgeInSeconds. */
  schedulerMaxEventAgeS: number;
  /** FlexibleTimeWindow.MaximumWindowInMinutes in seconds; 0 is Mode OFF. */
  flexibleWindowS: number;
}

export interface HerdResult {
  fires: number;
  /** Time from the nominal fire time until the last message is deleted or dead-lettered. */
  drainS: number;
  /** Nominal fire time → start of the successful invocation. */
  queueAgeP50S: number;
  queueAgeP99S: number;
  maxQueueAgeS: number;
  scanDeadLetters: number;
  schedulerDeadLetters: number;
  expired: number;
  throttledReceives: number;
  timedOut: number;
  succeeded: number;
  lambdaSeconds: number;
  gbSeconds: number;
  peakConcurrency: number;
}

/** mulberry32: a tiny seeded PRNG, so a simulation is reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Draws scan durations (seconds) from measured samples, uniformly with replacement. */
export function samplerFrom(samplesS: readonly number[], random: () => number): () => number {
  if (samplesS.length === 0) throw new Error('no duration samples');
  return () => samplesS[Math.floor(random() * samplesS.length)];
}

interface Message {
  /** When the message entered the queue (for retention). */
  enqueuedAt: number;
  receives: number;
}

type Event =
  | { at: number; kind: 'visible'; message: Message }
  | { at: number; kind: 'done'; throttled: boolean }
  /** The event source's ramp reaches its next step: more work may start. */
  | { at: number; kind: 'tick' };

/** A binary min-heap on `at`; ties keep insertion order so runs are deterministic. */
class EventHeap {
  private items: { event: Event; seq: number }[] = [];
  private seq = 0;
  get size(): number {
    return this.items.length;
  }
  push(event: Event): void {
    const items = this.items;
    items.push({ event, seq: this.seq++ });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }
  peek(): Event | undefined {
    return this.items[0]?.event;
  }
  pop(): Event | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < items.length && this.less(items[left], items[smallest])) smallest = left;
        if (right < items.length && this.less(items[right], items[smallest])) smallest = right;
        if (smallest === i) break;
        [items[i], items[smallest]] = [items[smallest], items[i]];
        i = smallest;
      }
    }
    return top?.event;
  }
  private less(a: { event: Event; seq: number }, b: { event: Event; seq: number }): boolean {
    return a.event.at < b.event.at || (a.event.at === b.event.at && a.seq < b.seq);
  }
}

/** FIFO of visible messages (SQS standard is only roughly FIFO; the model takes the fair case). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head > 65_536 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

const INITIAL_CONCURRENCY = 5;

/** Runs the herd of `fires` fires due at t = 0 and returns its figures. */
export function simulateHerd(fires: number, settings: HerdSettings, drawDurationS: () => number, random: () => number): HerdResult {
  const events = new EventHeap();
  let schedulerDeadLetters = 0;

  // Scheduler delivery: fires in nominal order (spread by the flexible window), each sent no earlier
  // than the throttle allows after the previous one.
  const nominal = Array.from({ length: fires }, () => (settings.flexibleWindowS > 0 ? random() * settings.flexibleWindowS : 0));
  nominal.sort((a, b) => a - b);
  let lastSend = -Infinity;
  for (const due of nominal) {
    const send = Math.max(due, lastSend + 1 / settings.schedulerInvocationTps);
    if (send - due > settings.schedulerMaxEventAgeS) {
      schedulerDeadLetters += 1;
      continue;
    }
    lastSend = send;
    events.push({ at: send, kind: 'visible', message: { enqueuedAt: send, receives: 0 } });
  }

  const ready = new Fifo<Message>();
  const ages: number[] = [];
  let now = 0;
  let busy = 0;
  let throttledBusy = 0;
  let firstArrival = Number.NaN;
  let drainS = 0;
  let scanDeadLetters = 0;
  let expired = 0;
  let throttledReceives = 0;
  let timedOut = 0;
  let lambdaSeconds = 0;
  let peakConcurrency = 0;

  /** Invocations the event source may run at `t`: its cap, ramped up since the first message. */
  const eventSourceLimit = (t: number) =>
    Math.min(settings.maxConcurrency, INITIAL_CONCURRENCY + Math.floor(Math.max(0, t - firstArrival) / 60) * settings.scaleUpPerMinute);

  const startWork = () => {
    for (;;) {
      const limit = eventSourceLimit(now);
      if (busy + throttledBusy >= limit || ready.size === 0) return;
      const message = ready.shift()!;
      if (now - message.enqueuedAt > settings.retentionS) {
        expired += 1;
        drainS = Math.max(drainS, now);
        continue;
      }
      message.receives += 1;
      if (message.receives > settings.maxReceiveCount) {
        scanDeadLetters += 1;
        drainS = Math.max(drainS, now);
        continue;
      }
      if (busy >= settings.accountConcurrency) {
        // Received, then throttled: the receive is spent and the message hides for the visibility timeout.
        throttledReceives += 1;
        throttledBusy += 1;
        events.push({ at: now + 1, kind: 'done', throttled: true });
        events.push({ at: now + settings.visibilityTimeoutS, kind: 'visible', message });
        continue;
      }
      busy += 1;
      peakConcurrency = Math.max(peakConcurrency, busy);
      const duration = drawDurationS();
      if (duration > settings.functionTimeoutS) {
        timedOut += 1;
        lambdaSeconds += settings.functionTimeoutS;
        events.push({ at: now + settings.functionTimeoutS, kind: 'done', throttled: false });
        events.push({ at: now + settings.visibilityTimeoutS, kind: 'visible', message });
      } else {
        ages.push(now);
        lambdaSeconds += duration;
        events.push({ at: now + duration, kind: 'done', throttled: false });
        drainS = Math.max(drainS, now + duration);
      }
    }
  };

  while (events.size > 0) {
    const event = events.pop()!;
    now = event.at;
    if (event.kind === 'visible') {
      if (Number.isNaN(firstArrival)) firstArrival = now;
      ready.push(event.message);
    } else if (event.kind === 'done') {
      if (event.throttled) throttledBusy -= 1;
      else busy -= 1;
    }
    startWork();
    // While the ramp still rises and work waits, wake at the next step so the new capacity is used
    // even when nothing else happens before it.
    if (ready.size > 0 && eventSourceLimit(now) < settings.maxConcurrency) {
      const nextStep = firstArrival + (Math.floor((now - firstArrival) / 60) + 1) * 60;
      const next = events.peek();
      if (next === undefined || next.at > nextStep) events.push({ at: nextStep, kind: 'tick' });
    }
  }

  ages.sort((a, b) => a - b);
  const pick = (p: number) => (ages.length === 0 ? 0 : ages[Math.min(ages.length - 1, Math.ceil((p / 100) * ages.length) - 1)]);
  return {
    fires,
    drainS,
    queueAgeP50S: pick(50),
    queueAgeP99S: pick(99),
    maxQueueAgeS: ages.at(-1) ?? 0,
    scanDeadLetters,
    schedulerDeadLetters,
    expired,
    throttledReceives,
    timedOut,
    succeeded: ages.length,
    lambdaSeconds,
    gbSeconds: (lambdaSeconds * settings.memoryMb) / 1024,
    peakConcurrency,
  };
}
