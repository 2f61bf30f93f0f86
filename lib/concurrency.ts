/**
 * The repository's one bounded pool: scan targets in the engine, lookalike resolution in mailscan,
 * port probes in netscan, TLS probes in tlsscan, and the service's batches. It lives in lib/, which
 * the service and the engines both import (DESIGN §11).
 */
export interface MapBoundedOptions {
  /** Once aborted, no further item starts; items already running finish. */
  signal?: AbortSignal;
}

/**
 * Maps `items` through `fn` with at most `limit` calls in flight. Results keep the input order.
 * When `signal` aborts, items not yet started are left out: their slots stay `undefined`, so use
 * `settledOnly` when a caller wants only the items that ran.
 * The first rejection rejects the whole map (after the calls already in flight settle).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  options: MapBoundedOptions = {},
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !options.signal?.aborted && !failure) {
      const index = next++;
      try {
        results[index] = await fn(items[index], index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const width = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (failure) throw failure.error;
  return results;
}

/** The results of the items that ran (for a map an abort cut short). */
export function settledOnly<R>(results: readonly (R | undefined)[]): R[] {
  return results.filter((result): result is R => result !== undefined);
}
