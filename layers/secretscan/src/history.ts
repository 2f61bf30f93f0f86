import { ByteLru } from '../../../lib/git/byte-lru.ts';
import { CorruptPack } from '../../../lib/git/delta.ts';
import { eventLoopTurns } from '../../../lib/git/event-loop-turns.ts';
import {
  GITLINK_MODE,
  parseCommit,
  parseTree,
  parseTreeChanges,
  TREE_MODE,
  type CommitInfo,
  type TreeEntry,
  type TreeVersion,
} from '../../../lib/git/git-objects.ts';
import type { PackStore } from '../../../lib/git/pack-store.ts';

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
  /**
   * Commits walked whose parents the server left out (declared shallow) before `maxCommits` was
   * reached: the server cut the history, and what lies below them was not read.
   */
  cutAt: string[];
}

export interface WalkOptions {
  store: PackStore;
  tip: string;
  /** Commits the server declared shallow (upload-pack's `shallow` lines): only their parents may be missing. */
  shallow: ReadonlySet<string>;
  maxCommits: number;
  /** Stops the walk with an error when the number of distinct blobs passes it (the files bound). */
  maxBlobs: number;
  signal: AbortSignal;
}

/** The walk found more distinct files than the bound allows. */
export class TooManyFiles extends Error {
  override readonly name = 'TooManyFiles';
  constructor(readonly limit: number) {
    super(`the repository holds more than ${limit} distinct files (the files bound)`);
  }
}

/** The last tree visited at each path, to decode only what a new version changed (bounded). */
const PREVIOUS_TREES_BYTES = 32 * 1024 * 1024;

export function headKey(oid: string, path: string): string {
  return `${oid}\u0000${path}`;
}

interface LoggedCommit {
  oid: string;
  info: CommitInfo;
}

/**
 * Up to `limit` commits reachable from `tip`, newest first by committer date (git log's order),
 * every parent followed. A parent the pack does not hold is the boundary only below a commit the
 * server declared shallow; anywhere else the history is incomplete, and walking on would report a
 * cut history as whole (an error read as clean), so it is an error.
 */
function log(store: PackStore, tip: string, limit: number, shallow: ReadonlySet<string>, cutAt: string[]): LoggedCommit[] {
  const seen = new Set<string>([tip]);
  const queue: LoggedCommit[] = [{ oid: tip, info: parseCommit(tip, store.read(tip, 'commit')) }];
  const out: LoggedCommit[] = [];
  while (queue.length > 0 && out.length < limit) {
    const next = queue.shift()!;
    out.push(next);
    for (const parent of next.info.parents) {
      if (seen.has(parent)) continue;
      if (!store.has(parent)) {
        if (shallow.has(next.oid)) {
          if (!cutAt.includes(next.oid)) cutAt.push(next.oid);
          continue;
        }
        throw new CorruptPack(`commit ${next.oid}'s parent ${parent} is missing, and the server did not declare it shallow`);
      }
      seen.add(parent);
      const entry = { oid: parent, info: parseCommit(parent, store.read(parent, 'commit')) };
      // Newest first: insert before the first older commit (the queue is a merge's width, not the history).
      const at = queue.findIndex((queued) => queued.info.committerTime < entry.info.committerTime);
      if (at === -1) queue.push(entry);
      else queue.splice(at, 0, entry);
    }
  }
  return out;
}

function treeOf(store: PackStore, oid: string): TreeEntry[] {
  return parseTree(oid, store.read(oid, 'tree'));
}

/**
 * Walks every commit reachable from `tip` (newest first, up to `maxCommits`), then visits their
 * trees oldest first, so each path's sighting of a blob names the oldest walked commit holding it:
 * the commit that brought the secret in, in a linear history. A subtree already visited at the
 * same path is skipped whole: an unchanged directory costs one lookup per commit, not one per file.
 */
export async function walkHistory(options: WalkOptions): Promise<HistoryWalk> {
  const { store, signal } = options;
  // One more than asked tells a history that ends from one that was cut.
  const boundary: string[] = [];
  const logged = log(store, options.tip, options.maxCommits + 1, options.shallow, boundary);
  const truncated = logged.length > options.maxCommits;
  const commits = logged.slice(0, options.maxCommits);
  // A shallow boundary is ours only where our own depth put it, past `maxCommits`; inside the walk, the server cut it.
  const walked = new Set(commits.map((commit) => commit.oid));
  const cutAt = commits.length < options.maxCommits ? boundary.filter((oid) => walked.has(oid)) : [];
  const blobs = new Map<string, BlobSighting[]>();
  const seenPairs = new Set<string>();
  const seenTrees = new Set<string>();
  const submodules = new Set<string>();
  // Every entry of the tree last visited at a path was seen there: its equal in the next version is skipped.
  const previousTrees = new ByteLru<string, TreeVersion>(PREVIOUS_TREES_BYTES);

  const visit = (treeOid: string, prefix: string, commit: string, authorDate: string): void => {
    const treeKey = `${treeOid}\u0000${prefix}`;
    if (seenTrees.has(treeKey)) return;
    seenTrees.add(treeKey);
    const content = store.read(treeOid, 'tree');
    const { changed, version } = parseTreeChanges(treeOid, content, previousTrees.get(prefix));
    for (const entry of changed) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.mode === TREE_MODE) visit(entry.oid, path, commit, authorDate);
      else if (entry.mode === GITLINK_MODE) submodules.add(path);
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
    previousTrees.set(prefix, version);
  };

  const turn = eventLoopTurns();
  for (const { oid, info } of [...commits].reverse()) {
    await turn();
    signal.throwIfAborted();
    visit(info.tree, '', oid, new Date(info.authorTime * 1000).toISOString());
  }

  const head = new Set<string>();
  const collectHead = (treeOid: string, prefix: string): void => {
    for (const entry of treeOf(store, treeOid)) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.mode === TREE_MODE) collectHead(entry.oid, path);
      else if (entry.mode !== GITLINK_MODE) head.add(headKey(entry.oid, path));
    }
  };
  if (commits.length > 0) collectHead(commits[0].info.tree, '');
  return { commits: commits.length, blobs, head, submodules, truncated, cutAt };
}
