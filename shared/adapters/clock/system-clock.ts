import type { Clock } from '../../ports/clock.ts';

/** The machine's clock: what every composition root passes outside tests. */
export const systemClock: Clock = { now: () => new Date() };
