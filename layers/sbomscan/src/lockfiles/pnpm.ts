/**
 * `pnpm-lock.yaml`, lockfile versions 6 (`packages` keyed `/name@version`, `dev` flags) and 9
 * (`packages` keyed `name@version`, the graph under `snapshots`, no dev flags: reachability from the
 * importers' `dependencies` decides). pnpm lockfiles carry no licences.
 */
import { parse as parseYaml } from 'yaml';
import {
  makeComponent,
  npmNameParts,
  scalarText,
  UnparseableLockfile,
  type Component,
  type DependencyScope,
  type ParsedFile,
  type SourceKind,
} from '../component.ts';
import { npmSource } from './npm.ts';

type Deps = Record<string, { specifier?: string; version: string } | string>;

interface Importer {
  dependencies?: Deps;
  devDependencies?: Deps;
  optionalDependencies?: Deps;
}

interface PackageEntry {
  resolution?: { integrity?: string; tarball?: string; type?: string; repo?: string; commit?: string; directory?: string };
  dev?: boolean;
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** `/@scope/name@1.2.3(peer@1.0.0)` or `name@1.2.3` → name and version. */
function splitKey(key: string): { name: string; version: string } {
  const bare = key.replace(/^\//, '').replace(/\(.*$/, '');
  const at = bare.indexOf('@', 1);
  return at === -1 ? { name: bare, version: '' } : { name: bare.slice(0, at), version: bare.slice(at + 1) };
}

function versionOf(dep: { version: string } | string): string {
  return typeof dep === 'string' ? dep : dep.version;
}

/** The package key a dependency's version points at (a version, or a `link:` / a full key). */
function keyFor(name: string, version: string, v9: boolean): string | undefined {
  if (version.startsWith('link:') || version.startsWith('file:')) return undefined;
  const bareVersion = version.replace(/\(.*$/, '');
  if (bareVersion.startsWith('/')) return bareVersion;
  if (/^(@[^/]+\/)?[^@]+@/.test(bareVersion) && !/^\d/.test(bareVersion)) return v9 ? bareVersion : `/${bareVersion}`;
  return v9 ? `${name}@${bareVersion}` : `/${name}@${bareVersion}`;
}

export function parsePnpmLock(path: string, text: string): ParsedFile {
  let doc: Record<string, unknown>;
  try {
    doc = parseYaml(text, { maxAliasCount: 0 }) as Record<string, unknown>;
  } catch (error) {
    throw new UnparseableLockfile(path, (error as Error).message.split('\n')[0]);
  }
  if (doc === null || typeof doc !== 'object' || doc.lockfileVersion === undefined)
    throw new UnparseableLockfile(path, 'not a pnpm lockfile');
  const major = Number.parseInt(scalarText(doc.lockfileVersion), 10);
  if (major < 6 || major > 9)
    throw new UnparseableLockfile(path, `lockfileVersion ${scalarText(doc.lockfileVersion)} is not read (6 to 9 are)`);
  const v9 = major >= 9;
  const packages = (doc.packages ?? {}) as Record<string, PackageEntry>;
  const snapshots = (doc.snapshots ?? {}) as Record<string, PackageEntry>;
  const importers: Importer[] = doc.importers ? Object.values(doc.importers as Record<string, Importer>) : [doc];

  const norm = (key: string): string => key.replace(/\(.*$/, '');
  const graph = (key: string): Record<string, string> => {
    const node = v9 ? (snapshots[key] ?? snapshots[norm(key)]) : packages[norm(key)];
    return { ...node?.dependencies, ...node?.optionalDependencies };
  };
  const reach = (roots: Array<[string, string]>): Set<string> => {
    const seen = new Set<string>();
    const stack = roots.map(([name, version]) => keyFor(name, version, v9)).filter((k): k is string => k !== undefined);
    while (stack.length > 0) {
      const key = stack.pop()!;
      if (seen.has(norm(key))) continue;
      seen.add(norm(key));
      for (const [name, version] of Object.entries(graph(key))) {
        const next = keyFor(name, version, v9);
        if (next) stack.push(next);
      }
    }
    return seen;
  };
  const prodRoots: Array<[string, string]> = [];
  for (const importer of importers) {
    for (const [name, dep] of Object.entries({ ...importer.dependencies, ...importer.optionalDependencies }))
      prodRoots.push([name, versionOf(dep)]);
  }
  const prod = reach(prodRoots);
  const direct = new Set(
    prodRoots
      .map(([name, version]) => keyFor(name, version, v9))
      .filter((k): k is string => k !== undefined)
      .map(norm),
  );

  const components: Component[] = [];
  const seen = new Set<string>();
  for (const [rawKey, entry] of Object.entries(packages)) {
    const key = norm(rawKey);
    const split = splitKey(rawKey);
    const name = entry.name ?? split.name;
    const resolution = entry.resolution ?? {};
    let source: SourceKind = 'registry';
    let resolved: string | undefined;
    let version = entry.version ?? split.version;
    if (resolution.type === 'git' || resolution.repo) {
      source = 'git';
      resolved = `${resolution.repo ?? ''}#${resolution.commit ?? ''}`;
    } else if (resolution.directory !== undefined) {
      source = 'file';
      resolved = `file:${resolution.directory}`;
    } else if (resolution.tarball !== undefined) {
      resolved = resolution.tarball;
      source = npmSource(resolution.tarball, name);
    }
    if (/^(https?:|git|file:)/.test(version)) version = entry.version ?? version;
    const scope: DependencyScope = direct.has(key)
      ? 'direct'
      : v9
        ? prod.has(key)
          ? 'transitive'
          : 'development'
        : entry.dev === true
          ? 'development'
          : 'transitive';
    const made = makeComponent({
      ecosystem: 'npm',
      ...npmNameParts(name),
      version,
      lockfile: path,
      scope,
      source,
      resolved,
      integrity: source === 'registry' || source === 'tarball' ? (resolution.integrity ?? null) : undefined,
    });
    if (seen.has(made.purl)) continue;
    seen.add(made.purl);
    components.push(made);
  }
  return { components, unpinned: [], notes: [] };
}
