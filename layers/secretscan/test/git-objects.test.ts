import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseCommit, parseTree, parseTreeChanges, type TreeEntry } from '../../../lib/git/git-objects.ts';

const oidOf = (text: string): string => createHash('sha1').update(text).digest('hex');

/** A tree object's content in git's format (entries sorted by name, as git writes them). */
function tree(entries: TreeEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return Buffer.concat(sorted.map(({ mode, name, oid }) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')])));
}

const entry = (name: string, version = 0, mode = '100644'): TreeEntry => ({ mode, name, oid: oidOf(`${name}@${version}`) });
const key = ({ mode, name, oid }: TreeEntry): string => `${mode} ${name} ${oid}`;

describe('tree parsing', () => {
  const base = Array.from({ length: 30 }, (_, n) => entry(`file-${String(n).padStart(2, '0')}.js`));

  it('parses every entry', () => {
    const entries = [...base, entry('lib', 0, '40000'), entry('vendor', 0, '160000')];
    expect(parseTree('t', tree(entries)).map(key).sort()).toEqual(entries.map(key).sort());
  });

  /** A version of a tree parsed whole (no previous version). */
  const version = (entries: TreeEntry[]) => parseTreeChanges('t', tree(entries), undefined).version;

  it('returns only what changed against the previous version at the same path', () => {
    const previous = version(base);
    const changed = entry('file-07.js', 1);
    const added = entry('file-10b.js');
    const next = [...base.filter((e) => e.name !== 'file-07.js' && e.name !== 'file-20.js'), changed, added];
    expect(parseTreeChanges('t', tree(next), previous).changed.map(key).sort()).toEqual([changed, added].map(key).sort());
    expect(parseTreeChanges('t', tree(base), previous).changed).toEqual([]);
    expect(parseTreeChanges('t', tree(base), undefined).changed).toHaveLength(30);
    // One entry changed: only it, found between the shared start and the shared end.
    const one = base.map((e) => (e.name === 'file-29.js' ? entry(e.name, 2) : e));
    expect(parseTreeChanges('t', tree(one), previous).changed.map(key)).toEqual([key(entry('file-29.js', 2))]);
  });

  it('never leaves out an entry the previous version did not have, and knows where every entry starts, whatever the edits', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const edit = (entries: TreeEntry[]): TreeEntry[] => {
      const kept = entries.filter(() => random() > 0.1);
      const extra = Array.from({ length: Math.floor(random() * 3) }, () => entry(`new-${Math.floor(random() * 1000)}.js`));
      return [
        ...kept.map((e) => (random() > 0.9 ? entry(e.name, Math.floor(random() * 3), random() > 0.9 ? '100755' : '100644') : e)),
        ...extra,
      ].filter((e, at, all) => all.findIndex((other) => other.name === e.name) === at);
    };
    for (let round = 0; round < 100; round += 1) {
      // A chain of versions, each compared with the one before (as the walk does), and its starts reused.
      let entries = base.filter(() => random() > 0.2);
      let previous = version(entries);
      for (let step = 0; step < 8; step += 1) {
        const next = random() > 0.5 ? edit(entries) : entries.map((e) => (random() > 0.95 ? entry(e.name, step + 5) : e));
        const known = new Set(entries.map(key));
        const { changed, version: parsed } = parseTreeChanges('t', tree(next), previous);
        const returned = changed.map(key);
        for (const k of next.map(key).filter((k) => !known.has(k))) expect(returned).toContain(k);
        expect(new Set(returned).size).toBe(returned.length);
        expect([...parsed.starts]).toEqual([...version(next).starts]);
        entries = next;
        previous = parsed;
      }
    }
  });

  it('refuses a cut tree', () => {
    expect(() => parseTree('t', tree(base).subarray(0, 50))).toThrow(/does not parse/);
  });

  it('reads a commit', () => {
    const commit = Buffer.from(
      `tree ${oidOf('t')}\nparent ${oidOf('p1')}\nparent ${oidOf('p2')}\nauthor A <a@example.test> 1700000000 +0100\ncommitter C <c@example.test> 1700000100 +0000\n\nmessage\nparent ${oidOf('x')}\n`,
    );
    expect(parseCommit('c', commit)).toEqual({
      tree: oidOf('t'),
      parents: [oidOf('p1'), oidOf('p2')],
      authorTime: 1700000000,
      committerTime: 1700000100,
    });
  });
});
