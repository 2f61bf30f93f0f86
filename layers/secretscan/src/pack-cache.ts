/**
 * Bounds isomorphic-git's object cache. Its pack reader keeps every object it inflates once a read
 * has gone more than three deltas deep (GitPackIndex.readSlice counts depth up and never down), so
 * a whole-history scan would hold every blob and tree of the history in memory: gigabytes for a
 * large repository, where Lambda has what the function is given. Emptying the per-pack
 * offsetCache costs only re-inflation of delta bases read again later. The cache is found by its
 * symbol's description (PackfileCache), as isomorphic-git does not export it; if a later version
 * renames it, this does nothing and the memory bound of the benchmark shows it.
 */
interface PackIndexLike {
  offsetCache?: Record<string, unknown>;
}

export async function trimObjectCache(cache: object): Promise<boolean> {
  const symbol = Object.getOwnPropertySymbols(cache).find((candidate) => candidate.description === 'PackfileCache');
  const packs = symbol === undefined ? undefined : (cache as Record<symbol, unknown>)[symbol];
  if (!(packs instanceof Map)) return false;
  for (const entry of packs.values() as Iterable<unknown>) {
    const index = (await entry) as PackIndexLike | null;
    if (index && typeof index === 'object' && index.offsetCache) index.offsetCache = {};
  }
  return true;
}
