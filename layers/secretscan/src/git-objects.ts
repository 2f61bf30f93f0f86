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

/** A tree's entries: `<mode> <name>\0<20-byte id>` each. */
export function parseTree(oid: string, content: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 21 > content.length) throw new CorruptPack(`tree ${oid} does not parse`);
    entries.push({
      mode: content.toString('latin1', at, space),
      name: content.toString('utf8', space + 1, nul),
      oid: content.toString('hex', nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}

export const TREE_MODE = '40000';
export const GITLINK_MODE = '160000';
