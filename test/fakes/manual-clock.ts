import type { Clock } from '../../shared/ports/clock.ts';

/** A clock that only moves when told to: for tests and benchmarks. */
export class ManualClock implements Clock {
  #now: Date;

  constructor(start: Date | string) {
    this.#now = new Date(start);
  }

  now(): Date {
    return new Date(this.#now);
  }

  set(to: Date | string): void {
    this.#now = new Date(to);
  }

  advance(ms: number): Date {
    this.#now = new Date(this.#now.getTime() + ms);
    return this.now();
  }
}
