import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a long loop runs between two turns of the event loop (the deadline's timer fires there). */
const YIELD_MS = 50;

/**
 * For a long synchronous loop: the returned function, awaited once per step, gives the event loop
 * a turn once YIELD_MS have passed since the last one, and says whether it did.
 */
export function eventLoopTurns(): () => Promise<boolean> {
  let lastYield = performance.now();
  return async () => {
    if (performance.now() - lastYield <= YIELD_MS) return false;
    await nextTurn();
    lastYield = performance.now();
    return true;
  };
}
