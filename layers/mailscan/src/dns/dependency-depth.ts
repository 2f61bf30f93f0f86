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

/** Runs one of several concurrent tasks so that its dependencies are its own. */
export async function branch<T>(task: () => Promise<T>): Promise<T> {
  const parent = storage.getStore();
  if (!parent) return task();
  const child: DepthRecord = { depth: parent.depth };
  try {
    return await storage.run(child, task);
  } finally {
    parent.depth = Math.max(parent.depth, child.depth);
  }
}

/** Runs tasks concurrently, each in its own branch. */
export function inParallel<T, R>(items: readonly T[], task: (item: T) => Promise<R>): Promise<R[]> {
  return Promise.all(items.map((item) => branch(() => task(item))));
}

/** The depth of the flow that is about to issue a query (0 outside tracking). */
export function currentRecord(): DepthRecord | undefined {
  return storage.getStore();
}
