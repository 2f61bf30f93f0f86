/**
 * `Cargo.lock`: every `[[package]]` with its `source` (the crates.io index, another registry, git)
 * and `checksum`. Packages without a source are the workspace's own crates. Direct dependencies
 * come from the Cargo.toml beside it; Cargo.lock carries no licences and no dev flag.
 */
import { parse as parseToml } from 'smol-toml';
import { makeComponent, UnparseableLockfile, type Component, type ParsedFile, type SourceKind } from '../component.ts';

interface CargoPackage {
  name: string;
  version: string;
  source?: string;
  checksum?: string;
}

export function parseCargoLock(path: string, text: string, cargoToml?: string): ParsedFile {
  let doc: { package?: CargoPackage[] };
  try {
    doc = parseToml(text);
  } catch (error) {
    throw new UnparseableLockfile(path, (error as Error).message.split('\n')[0]);
  }
  const direct = new Set<string>();
  const devOnly = new Set<string>();
  if (cargoToml !== undefined) {
    try {
      const manifest = parseToml(cargoToml) as Record<string, Record<string, unknown> | undefined>;
      for (const name of Object.keys(manifest.dependencies ?? {})) direct.add(name);
      for (const name of Object.keys(manifest['build-dependencies'] ?? {})) direct.add(name);
      for (const name of Object.keys(manifest['dev-dependencies'] ?? {})) if (!direct.has(name)) devOnly.add(name);
    } catch {
      // An unreadable Cargo.toml leaves every package transitive.
    }
  }
  const components: Component[] = [];
  for (const pkg of doc.package ?? []) {
    if (typeof pkg.name !== 'string' || typeof pkg.version !== 'string')
      throw new UnparseableLockfile(path, 'a [[package]] lacks name or version');
    if (pkg.source === undefined) continue;
    const source: SourceKind = pkg.source.startsWith('git+') ? 'git' : pkg.source.startsWith('path+') ? 'file' : 'registry';
    components.push(
      makeComponent({
        ecosystem: 'cargo',
        name: pkg.name,
        version: pkg.version,
        lockfile: path,
        scope: direct.has(pkg.name) ? 'direct' : devOnly.has(pkg.name) ? 'development' : 'transitive',
        source,
        resolved: source === 'registry' ? undefined : pkg.source,
        integrity: source === 'registry' ? (pkg.checksum ?? null) : undefined,
      }),
    );
  }
  return { components, unpinned: [], notes: [] };
}
