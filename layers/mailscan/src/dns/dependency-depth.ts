import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Tracks how long the chain of dependent DNS queries is, for the scan benchmark.
 *
 * Each asynchronous flow carries a mutable `{ depth }`: the depth of the deepest answer it has
 * waited for. A query issued from a flow is one deeper than that; when its answer arrives the flow
 * has "seen" that depth. Concurrent work must not share one record (a sibling's answer is not a
 * dependency), so fan-out points run each task through `branch()`, which gives the task a copy and
 * folds the deepest depth back into the parent when the task ends. Outside `trackDepth()` every
 * helper is a pass-through, so production scans pay nothing for it.
 */
export interface DepthRecord {
  depth: number;
}

const storage = new AsyncLocalStorage<DepthRecord>();

/** Runs `work` as a tracked root; `record.depth` is the longest dependent chain when it ends. */
export async function trackDepth<T>(work: () => Promise<T>): Promise<{ result: T; record: DepthRecord }> {
  const record: DepthRecord = { depth: 0 };
  const result = await storage.run(record, work);
  return { result, record };
}

/** The record a branch's result was produced under, for flows that await it later (see `dependency`). */
const producedUnder = new WeakMap<Promise<unknown>, DepthRecord>();

/** Runs one of several concurrent tasks so that its dependencies are its own. */
export function branch<T>(task: () => Promise<T>): Promise<T> {
  const parent = storage.getStore();
  if (!parent) return task();
  const child: DepthRecord = { depth: parent.depth };
  const run = (async () => {
    try {
      return await storage.run(child, task);
    } finally {
      parent.depth = Math.max(parent.depth, child.depth);
    }
  })();
  producedUnder.set(run, child);
  return run;
}

/** `source.then(map)`, still known as the product of `source`'s branch. */
export function derived<T, R>(source: Promise<T>, map: (value: T) => R): Promise<R> {
  const result = source.then(map);
  const record = producedUnder.get(source);
  if (record) producedUnder.set(result, record);
  return result;
}

/**
 * Awaits another branch's result from a flow that is not that branch's parent (reputation waiting
 * for posture's MX hosts): the answers the result was built from become this flow's dependency.
 */
export async function dependency<T>(source: Promise<T> | T): Promise<T> {
  const value = await source;
  const record = source instanceof Promise ? producedUnder.get(source) : undefined;
  const own = storage.getStore();
  if (record && own) own.depth = Math.max(own.depth, record.depth);
  return value;
}

/** Runs tasks concurrently, each in its own branch. */
export function inParallel<T, R>(items: readonly T[], task: (item: T) => Promise<R>): Promise<R[]> {
  return Promise.all(items.map((item) => branch(() => task(item))));
}

/** The depth of the flow that is about to issue a query (0 outside tracking). */
export function currentRecord(): DepthRecord | undefined {
  return storage.getStore();
}
