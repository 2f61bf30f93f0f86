import git from 'isomorphic-git';
import type { FsClient } from 'isomorphic-git';
import { trimObjectCache } from './pack-cache.ts';

/** Where a blob was seen: the first (oldest walked) commit that holds it at this path. */
export interface BlobSighting {
  path: string;
  commit: string;
  /** The commit's author date, ISO 8601 in UTC. */
  authorDate: string;
}

export interface HistoryWalk {
  /** Commits walked, newest first. */
  commits: number;
  /** Every distinct blob with every path it was seen at (oldest sighting per path). */
  blobs: Map<string, BlobSighting[]>;
  /** `blob oid \0 path` for every file of the tip's tree: what `in_head` means. */
  head: Set<string>;
  /** Paths of submodules (gitlinks) seen; their commits live elsewhere and are not fetched. */
  submodules: Set<string>;
  /** True when the walk stopped at `maxCommits` with older commits left. */
  truncated: boolean;
}

export interface WalkOptions {
  fs: FsClient;
  gitdir: string;
  tip: string;
  maxCommits: number;
  /** Stops the walk with an error when the number of distinct blobs passes it (the files bound). */
  maxBlobs: number;
  signal: AbortSignal;
  cache: object;
}

/** The walk found more distinct files than the bound allows. */
export class TooManyFiles extends Error {
  override readonly name = 'TooManyFiles';
  constructor(readonly limit: number) {
    super(`the repository holds more than ${limit} distinct files (the files bound)`);
  }
}

/** Trees read between two trims of isomorphic-git's object cache (pack-cache.ts). */
const TREES_PER_TRIM = 20_000;

export function headKey(oid: string, path: string): string {
  return `${oid}\u0000${path}`;
}

/**
 * Walks every commit reachable from `tip` (newest first, up to `maxCommits`), then visits their
 * trees oldest first, so each path's sighting of a blob names the oldest walked commit holding it:
 * the commit that brought the secret in, in a linear history. A subtree already visited at the
 * same path is skipped whole: an unchanged directory costs one lookup per commit, not one per file.
 */
export async function walkHistory(options: WalkOptions): Promise<HistoryWalk> {
  const { fs, gitdir, cache, signal } = options;
  // One more than asked tells a history that ends from one that was cut.
  const log = await git.log({ fs, gitdir, ref: options.tip, depth: options.maxCommits + 1, cache });
  const truncated = log.length > options.maxCommits;
  const commits = log.slice(0, options.maxCommits);
  const blobs = new Map<string, BlobSighting[]>();
  const seenPairs = new Set<string>();
  const seenTrees = new Set<string>();
  const submodules = new Set<string>();
  let treesRead = 0;

  const visit = async (treeOid: string, prefix: string, commit: string, authorDate: string): Promise<void> => {
    const treeKey = `${treeOid}\u0000${prefix}`;
    if (seenTrees.has(treeKey)) return;
    seenTrees.add(treeKey);
    signal.throwIfAborted();
    if (++treesRead % TREES_PER_TRIM === 0) await trimObjectCache(cache);
    const { tree } = await git.readTree({ fs, gitdir, oid: treeOid, cache });
    for (const entry of tree) {
      const path = prefix === '' ? entry.path : `${prefix}/${entry.path}`;
      if (entry.type === 'tree') await visit(entry.oid, path, commit, authorDate);
      else if (entry.type === 'commit') submodules.add(path);
      else {
        const pair = headKey(entry.oid, path);
        if (seenPairs.has(pair)) continue;
        seenPairs.add(pair);
        let sightings = blobs.get(entry.oid);
        if (!sightings) {
          if (blobs.size >= options.maxBlobs) throw new TooManyFiles(options.maxBlobs);
          blobs.set(entry.oid, (sightings = []));
        }
        sightings.push({ path, commit, authorDate });
      }
    }
  };

  for (const entry of [...commits].reverse()) {
    const { author, tree } = entry.commit;
    await visit(tree, '', entry.oid, new Date(author.timestamp * 1000).toISOString());
  }

  const head = new Set<string>();
  const collectHead = async (treeOid: string, prefix: string): Promise<void> => {
    const { tree } = await git.readTree({ fs, gitdir, oid: treeOid, cache });
    for (const entry of tree) {
      const path = prefix === '' ? entry.path : `${prefix}/${entry.path}`;
      if (entry.type === 'tree') await collectHead(entry.oid, path);
      else if (entry.type === 'blob') head.add(headKey(entry.oid, path));
    }
  };
  if (commits.length > 0) await collectHead(commits[0].commit.tree, '');
  await trimObjectCache(cache);
  return { commits: commits.length, blobs, head, submodules, truncated };
}
