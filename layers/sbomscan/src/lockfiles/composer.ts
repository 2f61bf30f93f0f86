/** `composer.lock`: `packages` and `packages-dev`, each with its source, dist (and shasum) and licences. */
import { makeComponent, parseJsonObject, UnparseableLockfile, type Component, type ParsedFile, type SourceKind } from '../component.ts';

interface ComposerPackage {
  name: string;
  version: string;
  source?: { type?: string; url?: string; reference?: string };
  dist?: { type?: string; url?: string; shasum?: string };
  license?: string[];
}

export function parseComposerLock(path: string, text: string, composerJson?: string): ParsedFile {
  const doc = parseJsonObject<{ packages: ComposerPackage[]; 'packages-dev': ComposerPackage[] }>(path, text);
  if (!Array.isArray(doc.packages) && !Array.isArray(doc['packages-dev'])) {
    throw new UnparseableLockfile(path, 'not a composer.lock (no packages list)');
  }
  const direct = new Set<string>();
  try {
    if (composerJson !== undefined)
      for (const name of Object.keys((JSON.parse(composerJson) as { require?: object }).require ?? {})) direct.add(name.toLowerCase());
  } catch {
    // Without composer.json every package reads as transitive.
  }
  const components: Component[] = [];
  for (const [group, dev] of [
    ['packages', false],
    ['packages-dev', true],
  ] as const) {
    for (const pkg of doc[group] ?? []) {
      if (typeof pkg.name !== 'string' || typeof pkg.version !== 'string')
        throw new UnparseableLockfile(path, `a package of ${group} lacks name or version`);
      const [vendor, name] = pkg.name.includes('/') ? pkg.name.split('/', 2) : [undefined, pkg.name];
      const distType = pkg.dist?.type;
      const source: SourceKind = distType === 'path' ? 'file' : !pkg.dist && pkg.source?.type === 'git' ? 'git' : 'registry';
      components.push(
        makeComponent({
          ecosystem: 'composer',
          namespace: vendor,
          name,
          version: pkg.version.replace(/^v(?=\d)/, ''),
          lockfile: path,
          scope: dev ? 'development' : direct.has(pkg.name.toLowerCase()) ? 'direct' : 'transitive',
          licenses: pkg.license,
          source,
          resolved: pkg.dist?.url ?? pkg.source?.url,
          // Packagist's dists carry no shasum (GitHub zipballs change): composer's format has no required hash, so none is asked for.
          integrity: undefined,
        }),
      );
    }
  }
  return { components, unpinned: [], notes: [] };
}
