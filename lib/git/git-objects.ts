import { CorruptPack } from './delta.ts';

export interface CommitInfo {
  tree: string;
  parents: string[];
  /** Seconds since the epoch. */
  authorTime: number;
  committerTime: number;
}

export interface TreeEntry {
  /** Git's mode in octal text: 40000 a tree, 160000 a submodule (gitlink), anything else a blob. */
  mode: string;
  name: string;
  oid: string;
}

function timeOf(line: string | undefined): number {
  // `author Name <email> 1700000000 +0000`: the seconds are the last-but-one field.
  const match = line === undefined ? null : /> (\d+) [+-]\d{4}$/.exec(line);
  return match ? Number(match[1]) : 0;
}

/** The headers of a commit that the walk needs. */
export function parseCommit(oid: string, content: Buffer): CommitInfo {
  const end = content.indexOf('\n\n');
  const lines = content.toString('utf8', 0, end === -1 ? content.length : end).split('\n');
  const tree = /^tree ([0-9a-f]{40})$/.exec(lines[0] ?? '')?.[1];
  if (tree === undefined) throw new CorruptPack(`commit ${oid} has no tree`);
  const parents: string[] = [];
  let author: string | undefined;
  let committer: string | undefined;
  for (const line of lines) {
    if (line.startsWith('parent ')) parents.push(line.slice(7));
    else if (line.startsWith('author ')) author ??= line;
    else if (line.startsWith('committer ')) committer ??= line;
  }
  return { tree, parents, authorTime: timeOf(author), committerTime: timeOf(committer) };
}

/** Where the entry starting at `at` ends, and where its name ends (the NUL). */
function entryBounds(oid: string, content: Buffer, at: number): { nul: number; end: number } {
  const space = content.indexOf(0x20, at);
  const nul = space === -1 ? -1 : content.indexOf(0, space + 1);
  if (nul === -1 || nul + 21 > content.length) throw new CorruptPack(`tree ${oid} does not parse`);
  return { nul, end: nul + 21 };
}

function entryAt(content: Buffer, at: number, nul: number): TreeEntry {
  const space = content.indexOf(0x20, at);
  return {
    mode: content.toString('latin1', at, space),
    name: content.toString('utf8', space + 1, nul),
    oid: content.toString('hex', nul + 1, nul + 21),
  };
}

/** The entry starting at `at` of a tree that parsed (treeChanges gives where they start). */
export function treeEntryAt(content: Buffer, at: number): TreeEntry {
  return entryAt(content, at, content.indexOf(0, content.indexOf(0x20, at) + 1));
}

/** A tree's entries: `<mode> <name>\0<20-byte id>` each. */
export function parseTree(oid: string, content: Buffer): TreeEntry[] {
  return parseTreeChanges(oid, content, undefined).changed;
}

/** A tree's content with where each of its entries starts (and, last, its length): what the next version is compared with. */
export class TreeVersion {
  constructor(
    readonly content: Buffer,
    readonly starts: Uint32Array,
  ) {}

  /** What it holds in memory (ByteLru's measure). */
  get byteLength(): number {
    return this.content.length + this.starts.byteLength;
  }
}

/** The length of the longest common prefix of `a` and `b` (a binary search of native comparisons). */
function commonPrefix(a: Buffer, b: Buffer): number {
  let low = 0;
  let high = Math.min(a.length, b.length);
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (a.compare(b, 0, middle, 0, middle) === 0) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The length of the longest common suffix of `a` and `b`. */
function commonSuffix(a: Buffer, b: Buffer): number {
  let low = 0;
  let high = Math.min(a.length, b.length);
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (a.compare(b, b.length - middle, b.length, a.length - middle, a.length) === 0) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Whether `content[at, end)` is, byte for byte, `old[from, from + end - at)`. */
function sameBytes(content: Buffer, at: number, end: number, old: Buffer, from: number): boolean {
  return from + (end - at) <= old.length && content.compare(old, from, from + end - at, at, end) === 0;
}

/** The index of `value` in the sorted `starts` at or after `from`, or -1. */
function indexOfStart(starts: Uint32Array, value: number, from: number): number {
  let low = from;
  let high = starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (starts[middle] === value) return middle;
    if (starts[middle] < value) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * The entries of a tree that are not, byte for byte, entries of `previous` (an earlier version of
 * the tree at the same path), and this version to compare the next one with. A new version of a
 * directory usually differs from the last in one or two entries, and the others need not be
 * decoded, nor even visited: the bytes the two versions share at their start and at their end
 * (found by bisection, a dozen native comparisons) hold whole entries of `previous`, located by its
 * `starts`. Between them, entries are matched in order, resynchronising over one inserted, changed
 * or removed entry; an entry that is not matched is returned, so the only cost of losing step is
 * decoding entries that were already seen.
 */
export function parseTreeChanges(
  oid: string,
  content: Buffer,
  previous: TreeVersion | undefined,
): { changed: TreeEntry[]; version: TreeVersion } {
  const { changedAt, version } = treeChanges(oid, content, previous);
  return { changed: changedAt.map((at) => treeEntryAt(content, at)), version };
}

/**
 * parseTreeChanges with the changed entries as where they start in `content`, decoded one at a
 * time by the caller (treeEntryAt): a walk of a directory of thousands of files held them all as
 * objects at once, long enough for V8 to move them, and then every later one, to the old
 * generation (tens of MB of garbage in a walk of two million files).
 */
export function treeChanges(
  oid: string,
  content: Buffer,
  previous: TreeVersion | undefined,
): { changedAt: number[]; version: TreeVersion } {
  const changedAt: number[] = [];
  const starts: number[] = [];
  const old = previous?.content;
  const oldStarts = previous?.starts;
  // Whole entries of `previous` inside the common prefix: the same entries, at the same offsets.
  let kept = 0;
  if (old !== undefined && oldStarts !== undefined) {
    const prefix = commonPrefix(content, old);
    while (kept + 1 < oldStarts.length && oldStarts[kept + 1] <= prefix) kept += 1;
    for (let index = 0; index < kept; index += 1) starts.push(oldStarts[index]);
  }
  const suffix = old === undefined ? 0 : commonSuffix(content, old);
  const shift = old === undefined ? 0 : content.length - old.length;
  let at = oldStarts === undefined ? 0 : oldStarts[kept];
  let cursor = at;
  while (at < content.length) {
    if (oldStarts !== undefined && at >= content.length - suffix) {
      // From here on the bytes are those of `previous` from one of its entries on: the same entries.
      const same = indexOfStart(oldStarts, at - shift, kept);
      if (same !== -1) {
        for (let index = same; index < oldStarts.length - 1; index += 1) starts.push(oldStarts[index] + shift);
        at = content.length;
        break;
      }
    }
    starts.push(at);
    const { nul, end } = entryBounds(oid, content, at);
    if (old !== undefined && cursor < old.length) {
      if (sameBytes(content, at, end, old, cursor)) {
        cursor += end - at;
        at = end;
        continue;
      }
      const next = entryBounds(oid, old, cursor).end;
      if (sameBytes(content, at, end, old, next)) {
        cursor = next + end - at;
        at = end;
        continue;
      }
      // The same mode and name with another id: a changed entry; step over the old one.
      if (sameBytes(content, at, nul + 1, old, cursor)) cursor = next;
    }
    changedAt.push(at);
    at = end;
  }
  starts.push(content.length);
  return { changedAt, version: new TreeVersion(content, Uint32Array.from(starts)) };
}

export const TREE_MODE = '40000';
export const GITLINK_MODE = '160000';
