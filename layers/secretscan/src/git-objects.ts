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

/** A tree's entries: `<mode> <name>\0<20-byte id>` each. */
export function parseTree(oid: string, content: Buffer): TreeEntry[] {
  return parseTreeChanges(oid, content, undefined);
}

/**
 * The entries of a tree that are not, byte for byte, entries of `previous` (an earlier tree at the
 * same path): a new version of a directory usually differs from the last in one or two entries,
 * and the others need not be decoded at all. Entries are matched in order, resynchronising over
 * one inserted, changed or removed entry; an entry that is not matched is returned, so the only
 * cost of losing step is decoding entries that were already seen.
 */
export function parseTreeChanges(oid: string, content: Buffer, previous: Buffer | undefined): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const matches = (from: number, at: number, end: number): boolean =>
    previous !== undefined && from + (end - at) <= previous.length && content.compare(previous, from, from + end - at, at, end) === 0;
  let at = 0;
  let cursor = 0;
  while (at < content.length) {
    const { nul, end } = entryBounds(oid, content, at);
    if (previous !== undefined && cursor < previous.length) {
      if (matches(cursor, at, end)) {
        cursor += end - at;
        at = end;
        continue;
      }
      const next = entryBounds(oid, previous, cursor).end;
      if (matches(next, at, end)) {
        cursor = next + end - at;
        at = end;
        continue;
      }
      // The same mode and name with another id: a changed entry; step over the old one.
      if (matches(cursor, at, nul + 1)) cursor = next;
    }
    entries.push(entryAt(content, at, nul));
    at = end;
  }
  return entries;
}

export const TREE_MODE = '40000';
export const GITLINK_MODE = '160000';
