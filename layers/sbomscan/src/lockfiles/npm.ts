/**
 * npm's `package-lock.json` (lockfileVersion 1, 2 and 3) and `npm-shrinkwrap.json`. Versions 2 and
 * 3 list every installed path under `packages` with `dev` / `optional` flags and licences; version 1
 * nests `dependencies` and names the direct ones only in the package.json beside it.
 */
import {
  makeComponent,
  npmNameParts,
  UnparseableLockfile,
  type Component,
  type DependencyScope,
  type ParsedFile,
  type SourceKind,
} from '../component.ts';

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

interface V2Entry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
  license?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface V1Entry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  bundled?: boolean;
  dependencies?: Record<string, V1Entry>;
}

/** An npm `resolved` value: the registry's tarball layout (`/<name>/-/<file>.tgz`) is the registry. */
export function npmSource(resolved: string | undefined, name: string): SourceKind {
  if (resolved === undefined) return 'registry';
  if (/^git(\+|:)|^github:|^git@/.test(resolved)) return 'git';
  if (/^file:|^link:/.test(resolved)) return 'file';
  if (/^https?:\/\//.test(resolved)) {
    const path = new URL(resolved).pathname;
    const bare = name.startsWith('@') ? name.split('/')[1] : name;
    return path.includes(`/-/${bare}-`) ? 'registry' : 'tarball';
  }
  return 'registry';
}

function objectOr<T>(value: unknown, path: string, what: string): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UnparseableLockfile(path, `${what} is not an object`);
  return value as T;
}

function component(
  fullName: string,
  version: string,
  entry: { resolved?: string; integrity?: string; license?: string },
  path: string,
  scope: DependencyScope,
): Component {
  const source = npmSource(entry.resolved, fullName);
  // An alias (`"foo": "npm:bar@1.0.0"`) installs bar: its version field then reads "npm:bar@1.0.0" in v1.
  const alias = /^npm:((?:@[^/]+\/)?[^@]+)@(.+)$/.exec(version);
  const realName = alias ? alias[1] : fullName;
  const realVersion = alias ? alias[2] : version;
  return makeComponent({
    ecosystem: 'npm',
    ...npmNameParts(realName),
    version: realVersion,
    lockfile: path,
    scope,
    licenses: entry.license ? [entry.license] : undefined,
    source,
    resolved: entry.resolved,
    // Registry and tarball entries carry an integrity hash; git and file ones have none to carry.
    integrity: source === 'registry' || source === 'tarball' ? (entry.integrity ?? null) : undefined,
  });
}

function directNames(pkg: PackageJson | undefined): { prod: Set<string>; dev: Set<string> } {
  return {
    prod: new Set([...Object.keys(pkg?.dependencies ?? {}), ...Object.keys(pkg?.optionalDependencies ?? {})]),
    dev: new Set(Object.keys(pkg?.devDependencies ?? {})),
  };
}

export function parseNpmLock(path: string, text: string, packageJson?: string): ParsedFile {
  let lock: Record<string, unknown>;
  try {
    lock = objectOr(JSON.parse(text), path, 'the lockfile');
  } catch (error) {
    if (error instanceof UnparseableLockfile) throw error;
    throw new UnparseableLockfile(path, 'not JSON');
  }
  let pkg: PackageJson | undefined;
  if (packageJson !== undefined) {
    try {
      pkg = JSON.parse(packageJson) as PackageJson;
    } catch {
      pkg = undefined;
    }
  }
  const components: Component[] = [];
  if (lock.packages !== undefined) {
    const packages = objectOr<Record<string, V2Entry>>(lock.packages, path, 'packages');
    const root = packages[''] ?? pkg ?? {};
    const direct = directNames(root);
    for (const [key, raw] of Object.entries(packages)) {
      if (key === '') continue;
      const entry = objectOr<V2Entry>(raw, path, `packages["${key}"]`);
      // Workspace members are the project itself, linked, not packages it depends on.
      if (entry.link || !key.includes('node_modules/')) continue;
      const fullName = entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
      if (typeof entry.version !== 'string') throw new UnparseableLockfile(path, `packages["${key}"] has no version`);
      const topLevel = key === `node_modules/${fullName}`;
      const scope: DependencyScope =
        entry.dev || entry.devOptional ? 'development' : topLevel && direct.prod.has(fullName) ? 'direct' : 'transitive';
      components.push(component(fullName, entry.version, entry, path, scope));
    }
    return { components, unpinned: [], notes: [] };
  }
  const direct = directNames(pkg);
  const walk = (deps: Record<string, V1Entry>, depth: number): void => {
    for (const [name, raw] of Object.entries(deps)) {
      const entry = objectOr<V1Entry>(raw, path, `dependencies["${name}"]`);
      if (typeof entry.version !== 'string') throw new UnparseableLockfile(path, `dependencies["${name}"] has no version`);
      if (!entry.version.startsWith('file:')) {
        const scope: DependencyScope = entry.dev ? 'development' : depth === 0 && direct.prod.has(name) ? 'direct' : 'transitive';
        const resolved = entry.resolved ?? (/^(git|github:)/.test(entry.version) ? entry.version : undefined);
        const version =
          resolved !== undefined && /^git/.test(entry.version)
            ? (/#([0-9a-f]{7,40})$/.exec(entry.version)?.[1] ?? entry.version)
            : entry.version;
        components.push(component(name, version, { ...entry, resolved }, path, scope));
      }
      if (entry.dependencies) walk(objectOr(entry.dependencies, path, `dependencies["${name}"].dependencies`), depth + 1);
    }
  };
  walk(objectOr(lock.dependencies ?? {}, path, 'dependencies'), 0);
  return { components, unpinned: [], notes: [] };
}
