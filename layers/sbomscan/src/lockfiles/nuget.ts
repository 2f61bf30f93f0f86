/** NuGet `packages.lock.json`: per target framework, each package `Direct` or `Transitive` with its `contentHash`. */
import { makeComponent, parseJsonObject, UnparseableLockfile, type Component, type ParsedFile } from '../component.ts';

interface NugetEntry {
  type?: string;
  resolved?: string;
  contentHash?: string;
}

export function parseNugetLock(path: string, text: string): ParsedFile {
  const doc = parseJsonObject<{ dependencies: Record<string, Record<string, NugetEntry>> }>(path, text);
  if (doc.dependencies === undefined || doc.dependencies === null || typeof doc.dependencies !== 'object')
    throw new UnparseableLockfile(path, 'no dependencies');
  const seen = new Map<string, Component>();
  for (const packages of Object.values(doc.dependencies)) {
    for (const [name, entry] of Object.entries(packages)) {
      if (entry.type === 'Project' || typeof entry.resolved !== 'string') continue;
      const made = makeComponent({
        ecosystem: 'nuget',
        name,
        version: entry.resolved,
        lockfile: path,
        scope: entry.type === 'Direct' ? 'direct' : 'transitive',
        source: 'registry',
        integrity: entry.contentHash ?? null,
      });
      const before = seen.get(made.purl);
      // A package direct for one framework is direct.
      if (!before || (before.scope !== 'direct' && made.scope === 'direct')) seen.set(made.purl, made);
    }
  }
  return { components: [...seen.values()], unpinned: [], notes: [] };
}
