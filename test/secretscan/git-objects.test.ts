import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseCommit, parseTree, parseTreeChanges, type TreeEntry } from '../../layers/secretscan/src/git-objects.ts';

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

  it('returns only what changed against the previous version at the same path', () => {
    const previous = tree(base);
    const changed = entry('file-07.js', 1);
    const added = entry('file-10b.js');
    const next = [...base.filter((e) => e.name !== 'file-07.js' && e.name !== 'file-20.js'), changed, added];
    expect(parseTreeChanges('t', tree(next), previous).map(key).sort()).toEqual([changed, added].map(key).sort());
    expect(parseTreeChanges('t', tree(base), previous)).toEqual([]);
    expect(parseTreeChanges('t', tree(base), undefined)).toHaveLength(30);
  });

  it('never leaves out an entry the previous version did not have, whatever the edits', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round += 1) {
      const before = base.filter(() => random() > 0.2).map((e) => (random() > 0.9 ? entry(e.name, 1) : e));
      const after = base
        .filter(() => random() > 0.2)
        .map((e) => (random() > 0.8 ? entry(e.name, Math.floor(random() * 3), random() > 0.9 ? '100755' : '100644') : e));
      const known = new Set(before.map(key));
      const returned = parseTreeChanges('t', tree(after), tree(before)).map(key);
      const unseen = after.map(key).filter((k) => !known.has(k));
      for (const k of unseen) expect(returned).toContain(k);
      expect(new Set(returned).size).toBe(returned.length);
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
