/**
 * `yarn.lock`: yarn v1's own format, or yarn berry's YAML (with `__metadata`). Neither says which
 * packages are development-only, so that is worked out from the package.json beside the lockfile:
 * a package reachable from `dependencies` is a production one, else from `devDependencies` only.
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
} from '../component.ts';
import { npmSource } from './npm.ts';

interface Entry {
  /** The descriptors (`name@range`) this entry resolves. */
  descriptors: string[];
  name: string;
  version: string;
  resolved?: string;
  integrity?: string | null;
  dependencies: Record<string, string>;
  /** berry: a workspace or a linked folder, which is the project itself. */
  workspace: boolean;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  return trimmed.startsWith('"') && trimmed.endsWith('"') ? (JSON.parse(trimmed) as string) : trimmed;
}

/** `@scope/name@^1.0.0` → name `@scope/name`. */
function descriptorName(descriptor: string): string {
  const at = descriptor.indexOf('@', 1);
  return at === -1 ? descriptor : descriptor.slice(0, at);
}

function parseV1(path: string, text: string): Entry[] {
  const entries: Entry[] = [];
  let current: Entry | undefined;
  let inDependencies = false;
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const indent = /^ */.exec(line)![0].length;
    if (indent === 0) {
      if (!line.endsWith(':')) throw new UnparseableLockfile(path, `line ${index + 1} is not an entry`);
      const descriptors = line.slice(0, -1).split(/,\s*/).map(unquote);
      current = { descriptors, name: descriptorName(descriptors[0]), version: '', dependencies: {}, workspace: false };
      entries.push(current);
      inDependencies = false;
      return;
    }
    if (!current) throw new UnparseableLockfile(path, `line ${index + 1} is outside an entry`);
    const body = line.trim();
    if (indent === 2) {
      inDependencies = body === 'dependencies:' || body === 'optionalDependencies:';
      const match = /^("?[^\s"]+"?)\s+(.+)$/.exec(body);
      if (!match) return;
      const key = unquote(match[1]);
      const value = unquote(match[2]);
      if (key === 'version') current.version = value;
      else if (key === 'resolved') current.resolved = value;
      else if (key === 'integrity') current.integrity = value;
      return;
    }
    if (indent >= 4 && inDependencies) {
      const match = /^("?[^\s"]+"?)\s+(.+)$/.exec(body);
      if (match) current.dependencies[unquote(match[1])] = unquote(match[2]);
    }
  });
  for (const entry of entries) if (entry.version === '') throw new UnparseableLockfile(path, `${entry.descriptors[0]} has no version`);
  return entries;
}

function parseBerry(path: string, doc: Record<string, unknown>): Entry[] {
  const entries: Entry[] = [];
  for (const [key, raw] of Object.entries(doc)) {
    if (key === '__metadata') continue;
    const value = raw as Record<string, unknown> | null;
    if (value === null || typeof value !== 'object') throw new UnparseableLockfile(path, `${key} is not an entry`);
    const resolution = scalarText(value.resolution);
    const descriptors = key.split(/,\s*/);
    const name = descriptorName(resolution || descriptors[0]);
    const protocol = /@([a-z]+):/.exec(resolution.slice(name.length))?.[1] ?? 'npm';
    const workspace = protocol === 'workspace' || protocol === 'link' || protocol === 'portal';
    // berry resolutions name where a package comes from: npm:, git+…/https: (git or tarball), file:, patch:.
    const locator = resolution.slice(name.length + 1);
    const resolved = protocol === 'npm' || protocol === 'patch' ? undefined : locator;
    const deps: Record<string, string> = {};
    for (const group of ['dependencies', 'optionalDependencies']) {
      for (const [dep, range] of Object.entries((value[group] as Record<string, string> | undefined) ?? {})) deps[dep] = String(range);
    }
    entries.push({
      descriptors: descriptors.map((d) => d.replace(/@npm:/, '@')),
      name,
      version: scalarText(value.version),
      resolved,
      // berry's `checksum` is its integrity hash; a linked or git package has none to carry.
      integrity: typeof value.checksum === 'string' ? value.checksum : protocol === 'npm' ? null : undefined,
      dependencies: deps,
      workspace,
    });
  }
  return entries;
}

export function parseYarnLock(path: string, text: string, packageJson?: string): ParsedFile {
  let entries: Entry[];
  if (/^__metadata:/m.test(text)) {
    let doc: unknown;
    try {
      doc = parseYaml(text, { maxAliasCount: 0 });
    } catch (error) {
      throw new UnparseableLockfile(path, (error as Error).message.split('\n')[0]);
    }
    if (doc === null || typeof doc !== 'object') throw new UnparseableLockfile(path, 'not a yarn lockfile');
    entries = parseBerry(path, doc as Record<string, unknown>);
  } else {
    entries = parseV1(path, text);
  }
  let pkg: {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  } = {};
  try {
    if (packageJson !== undefined) pkg = JSON.parse(packageJson) as typeof pkg;
  } catch {
    pkg = {};
  }
  const byDescriptor = new Map<string, Entry>();
  for (const entry of entries) for (const descriptor of entry.descriptors) byDescriptor.set(descriptor, entry);
  const lookup = (name: string, rawRange: string): Entry | undefined => {
    // berry writes its dependency ranges with the protocol (`npm:2.1.2`); its descriptors are stored without `npm:`.
    const range = rawRange.replace(/^npm:/, '');
    return (
      byDescriptor.get(`${name}@${range}`) ??
      entries.find((e) => e.name === name && e.descriptors.some((d) => d.startsWith(`${name}@`) && d.endsWith(range)))
    );
  };
  const reach = (roots: Record<string, string>): Set<Entry> => {
    const seen = new Set<Entry>();
    const stack = Object.entries(roots)
      .map(([name, range]) => lookup(name, range))
      .filter((e): e is Entry => e !== undefined);
    while (stack.length > 0) {
      const entry = stack.pop()!;
      if (seen.has(entry)) continue;
      seen.add(entry);
      for (const [name, range] of Object.entries(entry.dependencies)) {
        const next = lookup(name, range);
        if (next) stack.push(next);
      }
    }
    return seen;
  };
  const prodRoots = { ...pkg.dependencies, ...pkg.optionalDependencies };
  const prod = reach(prodRoots);
  const directProd = new Set(Object.entries(prodRoots).map(([name, range]) => lookup(name, range)));
  const components: Component[] = [];
  const seenPurls = new Set<string>();
  for (const entry of entries) {
    if (entry.workspace) continue;
    const scope: DependencyScope = directProd.has(entry)
      ? 'direct'
      : prod.has(entry) || packageJson === undefined
        ? 'transitive'
        : 'development';
    const source = npmSource(entry.resolved, entry.name);
    const made = makeComponent({
      ecosystem: 'npm',
      ...npmNameParts(entry.name),
      version: entry.version,
      lockfile: path,
      scope,
      source,
      resolved: entry.resolved,
      integrity: source === 'git' || source === 'file' ? undefined : entry.integrity === undefined ? null : entry.integrity,
    });
    if (seenPurls.has(made.purl)) continue;
    seenPurls.add(made.purl);
    components.push(made);
  }
  return { components, unpinned: [], notes: [] };
}
