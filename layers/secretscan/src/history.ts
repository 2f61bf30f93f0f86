import { ByteLru } from '../../../lib/git/byte-lru.ts';
import { CorruptPack } from '../../../lib/git/delta.ts';
import { eventLoopTurns } from '../../../lib/git/event-loop-turns.ts';
import {
  GITLINK_MODE,
  parseCommit,
  parseTree,
  treeChanges,
  treeEntryAt,
  TREE_MODE,
  type CommitInfo,
  type TreeEntry,
  type TreeVersion,
} from '../../../lib/git/git-objects.ts';
import type { PackStore } from '../../../lib/git/pack-store.ts';
import { BlobSightings } from './sightings.ts';

export type { BlobSighting } from './sightings.ts';

export interface HistoryWalk {
  /** Commits walked, newest first. */
  commits: number;
  /**
   * Every distinct blob, by its pack ordinal, with the paths it was seen at (oldest sighting per
   * path; at most MAX_SIGHTINGS_PER_BLOB, the rest counted in `sightingsLeftOut`), held compactly
   * (sightings.ts).
   */
  blobs: BlobSightings;
  /** Paths of blobs met past MAX_SIGHTINGS_PER_BLOB, not kept (a path met again may count twice). */
  sightingsLeftOut: number;
  /** Whether the tip's tree holds this blob at this path: what `in_head` means (looked up, not collected). */
  inHead(ordinal: number, path: string): boolean;
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
/** Paths kept per blob: a secret is reported at up to MAX_LOCATIONS of them anyway (scan.ts). */
export const MAX_SIGHTINGS_PER_BLOB = 64;
/** Subtrees remembered as visited at a path; past it the oldest are forgotten (and re-read if met again). */
const SEEN_TREES = 100_000;
/** Tree entries between two looks at the deadline inside one commit's tree. */
const ENTRIES_PER_CHECK = 1024;

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
async function log(
  store: PackStore,
  tip: string,
  limit: number,
  shallow: ReadonlySet<string>,
  cutAt: string[],
  signal: AbortSignal,
): Promise<LoggedCommit[]> {
  const seen = new Set<string>([tip]);
  const queue: LoggedCommit[] = [{ oid: tip, info: parseCommit(tip, store.read(tip, 'commit')) }];
  const out: LoggedCommit[] = [];
  const turn = eventLoopTurns();
  while (queue.length > 0 && out.length < limit) {
    if (await turn()) signal.throwIfAborted();
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
 * `inHead` of the walk: the path looked up in the tip's tree, directory by directory, for the few
 * places a secret was found, instead of a set of every file of the tip (a string per file: two
 * million files held hundreds of megabytes).
 */
function headLookup(store: PackStore, tipTree: string | undefined): (ordinal: number, path: string) => boolean {
  const directories = new Map<string, Map<string, TreeEntry>>();
  const directory = (oid: string): Map<string, TreeEntry> => {
    let entries = directories.get(oid);
    if (!entries) {
      if (directories.size >= 64) directories.clear();
      entries = new Map(treeOf(store, oid).map((entry) => [entry.name, entry]));
      directories.set(oid, entries);
    }
    return entries;
  };
  return (ordinal, path) => {
    if (tipTree === undefined) return false;
    let tree = tipTree;
    const names = path.split('/');
    for (const [at, name] of names.entries()) {
      const entry = directory(tree).get(name);
      if (!entry) return false;
      if (at === names.length - 1) return entry.mode !== TREE_MODE && entry.mode !== GITLINK_MODE && store.ordinal(entry.oid) === ordinal;
      if (entry.mode !== TREE_MODE) return false;
      tree = entry.oid;
    }
    return false;
  };
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
  const logged = await log(store, options.tip, options.maxCommits + 1, options.shallow, boundary, signal);
  const truncated = logged.length > options.maxCommits;
  const commits = logged.slice(0, options.maxCommits);
  // A shallow boundary is ours only where our own depth put it, past `maxCommits`; inside the walk, the server cut it.
  const walked = new Set(commits.map((commit) => commit.oid));
  const cutAt = commits.length < options.maxCommits ? boundary.filter((oid) => walked.has(oid)) : [];
  const blobs = new BlobSightings();
  let sightingsLeftOut = 0;
  // `treeOrdinal \0 path` of subtrees visited, forgotten oldest first past SEEN_TREES (a Set keeps insertion order).
  const seenTrees = new Set<string>();
  const submodules = new Set<string>();
  // Every entry of the tree last visited at a path was seen there: its equal in the next version is skipped.
  const previousTrees = new ByteLru<string, TreeVersion>(PREVIOUS_TREES_BYTES);
  const turn = eventLoopTurns();
  let entries = 0;

  // Long synchronous work (one commit may hold millions of files): the deadline is looked at every
  // ENTRIES_PER_CHECK entries, not only between commits. `last`: the tip's tree, the last visited,
  // whose versions no later commit compares with (a scan of the tip alone keeps none).
  const visit = async (treeOid: string, prefix: string, commit: string, last: boolean): Promise<void> => {
    const treeKey = `${store.ordinal(treeOid)}\u0000${prefix}`;
    if (seenTrees.has(treeKey)) return;
    if (seenTrees.size >= SEEN_TREES) seenTrees.delete(seenTrees.values().next().value!);
    seenTrees.add(treeKey);
    const content = store.read(treeOid, 'tree');
    const { changedAt, version } = treeChanges(treeOid, content, previousTrees.get(prefix));
    const directory = blobs.directory(prefix);
    for (const at of changedAt) {
      const entry = treeEntryAt(content, at);
      entries += 1;
      if (entries % ENTRIES_PER_CHECK === 0 && (await turn())) signal.throwIfAborted();
      if (entry.mode === TREE_MODE) await visit(entry.oid, prefix === '' ? entry.name : `${prefix}/${entry.name}`, commit, last);
      else if (entry.mode === GITLINK_MODE) submodules.add(prefix === '' ? entry.name : `${prefix}/${entry.name}`);
      else {
        const ordinal = store.find(entry.oid);
        // A file of a walked commit that the pack does not hold is history not read: never clean.
        if (ordinal === undefined) {
          throw new CorruptPack(
            `${prefix === '' ? entry.name : `${prefix}/${entry.name}`} (${entry.oid}) of commit ${commit} is not in the pack`,
          );
        }
        if (!blobs.has(ordinal) && blobs.size >= options.maxBlobs) throw new TooManyFiles(options.maxBlobs);
        if (blobs.add(ordinal, directory, entry.name, MAX_SIGHTINGS_PER_BLOB) === 'dropped') sightingsLeftOut += 1;
      }
    }
    if (!last) previousTrees.set(prefix, version);
  };

  const oldestFirst = [...commits].reverse();
  for (const [at, { oid, info }] of oldestFirst.entries()) {
    await turn();
    signal.throwIfAborted();
    blobs.startCommit(oid, new Date(info.authorTime * 1000).toISOString());
    await visit(info.tree, '', oid, at === oldestFirst.length - 1);
  }

  return {
    commits: commits.length,
    blobs,
    sightingsLeftOut,
    inHead: headLookup(store, commits[0]?.info.tree),
    submodules,
    truncated,
    cutAt,
  };
}
