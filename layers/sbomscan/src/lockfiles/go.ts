/**
 * `go.mod`: its `require` lines are the module's dependency versions (minimal version selection
 * makes them the ones built); `// indirect` marks transitive ones. `replace` to a local path or
 * another module is a non-registry source. go.sum holds the hashes; its absence is a missing lockfile.
 */
import { makeComponent, type Component, type ParsedFile } from '../component.ts';

function goParts(module: string): { namespace?: string; name: string } {
  const slash = module.lastIndexOf('/');
  return slash === -1 ? { name: module } : { namespace: module.slice(0, slash), name: module.slice(slash + 1) };
}

export function parseGoMod(path: string, text: string, hasGoSum: boolean): ParsedFile {
  const requires: Array<{ module: string; version: string; indirect: boolean }> = [];
  const replaces = new Map<string, string>();
  let block: 'require' | 'replace' | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const indirect = /\/\/\s*indirect\b/.test(raw);
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    if (block && line === ')') {
      block = undefined;
      continue;
    }
    const opening = /^(require|replace)\s*\($/.exec(line);
    if (opening) {
      block = opening[1] as 'require' | 'replace';
      continue;
    }
    const single = /^(require|replace)\s+(.+)$/.exec(line);
    const kind = single ? single[1] : block;
    const body = single ? single[2] : line;
    if (kind === 'require') {
      const [module, version] = body.split(/\s+/);
      if (module && version) requires.push({ module, version, indirect });
    } else if (kind === 'replace') {
      const [from, to] = body.split('=>').map((part) => part.trim());
      if (from && to) replaces.set(from.split(/\s+/)[0], to);
    }
  }
  const components: Component[] = requires.map(({ module, version, indirect }) => {
    const replacement = replaces.get(module);
    const local = replacement !== undefined && /^(\.|\/)/.test(replacement);
    return makeComponent({
      ecosystem: 'golang',
      ...goParts(module),
      version,
      lockfile: path,
      scope: indirect ? 'transitive' : 'direct',
      source: local ? 'file' : 'registry',
      resolved: replacement,
      // The hashes live in go.sum: an entry without it has nothing that checks what is downloaded.
      integrity: local ? undefined : hasGoSum ? 'go.sum' : null,
    });
  });
  return { components, unpinned: [], notes: [] };
}
