/**
 * Python: pinned `requirements*.txt` lines, `poetry.lock`, `Pipfile.lock` and `uv.lock`. A
 * requirements line that is a range, not `==version`, is an unpinned dependency (and no component:
 * which version gets installed is not written down). Only Poetry's older lockfiles carry a
 * development flag (`category = "dev"`) and only uv's name the root's dev groups.
 */
import { parse as parseToml } from 'smol-toml';
import {
  parseJsonObject,
  makeComponent,
  normalisePypiName,
  UnparseableLockfile,
  type Component,
  type DependencyScope,
  type ParsedFile,
  type SourceKind,
  type UnpinnedDependency,
} from '../component.ts';

function pypi(
  name: string,
  version: string,
  path: string,
  scope: DependencyScope,
  source: SourceKind = 'registry',
  resolved?: string,
  integrity?: string | null,
): Component {
  return makeComponent({ ecosystem: 'pypi', name: normalisePypiName(name), version, lockfile: path, scope, source, resolved, integrity });
}

function toml(path: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text);
  } catch (error) {
    throw new UnparseableLockfile(path, (error as Error).message.split('\n')[0]);
  }
}

const REQUIREMENT = /^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)$/;

/** `requirements*.txt`: pinned lines are components; ranges and bare names are unpinned. */
export function parseRequirements(path: string, text: string): ParsedFile {
  const components: Component[] = [];
  const unpinned: UnpinnedDependency[] = [];
  const notes: string[] = [];
  // Continuation lines (`\` at the end) belong to the line before.
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    let line = lines[index];
    while (line.endsWith('\\') && index + 1 < lines.length) line = line.slice(0, -1) + ' ' + lines[++index];
    line = line.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') continue;
    if (line.startsWith('-')) {
      if (/^-(r|c)\s|^--(requirement|constraint)/.test(line))
        notes.push(`${path} includes ${line.split(/\s+/)[1]} (read when it is in the repository)`);
      else if (/^-e\s|^--editable/.test(line)) notes.push(`${path} line ${lineNumber} installs an editable path, not a package`);
      continue;
    }
    const bareUrl = /^(git\+|https?:\/\/|file:)/.test(line);
    const direct = bareUrl || / @ /.test(line);
    const match = REQUIREMENT.exec(line);
    if (!match) continue;
    // A bare URL line names its package in `#egg=`, else by its last path segment.
    const name = bareUrl
      ? (/[#&]egg=([A-Za-z0-9._-]+)/.exec(line)?.[1] ??
        line
          .split(/[#?]/)[0]
          .replace(/\.git$|\/$/, '')
          .split('/')
          .pop()!)
      : match[1];
    const rest = match[3]
      .split(';')[0]
      .replace(/--hash=\S+/g, '')
      .trim();
    if (direct) {
      const url = (/ @ (\S+)/.exec(line)?.[1] ?? line).trim();
      const source: SourceKind = /^git\+/.test(url) ? 'git' : /^file:/.test(url) ? 'file' : 'tarball';
      const commit = /@([0-9a-f]{7,40})(#.*)?$/.exec(url)?.[1];
      // A git URL pinned to a commit is pinned; to a branch or a tag, or an archive URL without a hash, it is not.
      if (commit === undefined && !/--hash=/.test(lines[index])) unpinned.push({ file: path, line: lineNumber, name, spec: url });
      components.push(pypi(name, commit ?? 'unknown', path, 'direct', source, url));
      continue;
    }
    const pinned = /^===?\s*([A-Za-z0-9.+!_-]+)$/.exec(rest);
    if (pinned && !pinned[1].includes('*')) components.push(pypi(name, pinned[1], path, 'direct'));
    else unpinned.push({ file: path, line: lineNumber, name, spec: rest === '' ? '(any version)' : rest });
  }
  return { components, unpinned, notes };
}

interface PoetryPackage {
  name: string;
  version: string;
  category?: string;
  source?: { type?: string; url?: string; reference?: string; resolved_reference?: string };
  files?: Array<{ hash?: string }>;
}

export function parsePoetryLock(path: string, text: string, pyproject?: string): ParsedFile {
  const doc = toml(path, text);
  const packages = (doc.package ?? []) as PoetryPackage[];
  const direct = new Set<string>();
  if (pyproject !== undefined) {
    try {
      const project = parseToml(pyproject) as {
        tool?: { poetry?: { dependencies?: Record<string, unknown> } };
        project?: { dependencies?: string[] };
      };
      for (const name of Object.keys(project.tool?.poetry?.dependencies ?? {})) direct.add(normalisePypiName(name));
      for (const spec of project.project?.dependencies ?? []) direct.add(normalisePypiName(REQUIREMENT.exec(spec)?.[1] ?? spec));
    } catch {
      // An unreadable pyproject leaves every package transitive; the lockfile is still read.
    }
  }
  return {
    components: packages.map((pkg) => {
      if (typeof pkg.name !== 'string' || typeof pkg.version !== 'string')
        throw new UnparseableLockfile(path, 'a [[package]] lacks name or version');
      const type = pkg.source?.type;
      const source: SourceKind =
        type === 'git' ? 'git' : type === 'file' || type === 'directory' ? 'file' : type === 'url' ? 'tarball' : 'registry';
      const scope: DependencyScope =
        pkg.category === 'dev' ? 'development' : direct.has(normalisePypiName(pkg.name)) ? 'direct' : 'transitive';
      const hashed = (pkg.files ?? []).some((file) => typeof file.hash === 'string');
      return pypi(
        pkg.name,
        pkg.version,
        path,
        scope,
        source,
        pkg.source?.url,
        source === 'registry' || source === 'tarball' ? (hashed ? 'files' : null) : undefined,
      );
    }),
    unpinned: [],
    notes: [],
  };
}

interface PipfileEntry {
  version?: string;
  hashes?: string[];
  git?: string;
  ref?: string;
  file?: string;
  path?: string;
}

export function parsePipfileLock(path: string, text: string): ParsedFile {
  const doc = parseJsonObject<{ default: Record<string, PipfileEntry>; develop: Record<string, PipfileEntry> }>(path, text);
  if (typeof doc.default !== 'object' && typeof doc.develop !== 'object') {
    throw new UnparseableLockfile(path, 'not a Pipfile.lock (no default or develop packages)');
  }
  const components: Component[] = [];
  for (const [group, scope] of [
    ['default', 'direct'],
    ['develop', 'development'],
  ] as const) {
    for (const [name, entry] of Object.entries(doc[group] ?? {})) {
      // Pipfile.lock flattens the graph: it cannot tell direct from transitive, so default entries read as direct.
      if (entry.git) components.push(pypi(name, entry.ref ?? 'unknown', path, scope, 'git', entry.git));
      else if (entry.file)
        components.push(
          pypi(
            name,
            'unknown',
            path,
            scope,
            /^file:/.test(entry.file) ? 'file' : 'tarball',
            entry.file,
            entry.hashes?.length ? 'hashes' : null,
          ),
        );
      else if (entry.path) continue;
      else if (typeof entry.version === 'string')
        components.push(
          pypi(name, entry.version.replace(/^==/, ''), path, scope, 'registry', undefined, entry.hashes?.length ? 'hashes' : null),
        );
    }
  }
  return {
    components,
    unpinned: [],
    notes: ['Pipfile.lock does not tell direct from transitive dependencies: its default packages are listed as direct'],
  };
}

interface UvPackage {
  name: string;
  version?: string;
  source?: { registry?: string; git?: string; url?: string; path?: string; editable?: string; virtual?: string; directory?: string };
  dependencies?: Array<{ name: string }>;
  'dev-dependencies'?: Record<string, Array<{ name: string }>>;
  'optional-dependencies'?: Record<string, Array<{ name: string }>>;
  sdist?: { hash?: string };
  wheels?: Array<{ hash?: string }>;
}

export function parseUvLock(path: string, text: string): ParsedFile {
  const doc = toml(path, text);
  const packages = (doc.package ?? []) as UvPackage[];
  const isProject = (pkg: UvPackage): boolean => Boolean(pkg.source?.editable ?? pkg.source?.virtual);
  const byName = new Map(packages.map((pkg) => [normalisePypiName(pkg.name), pkg]));
  const roots = packages.filter(isProject);
  const reach = (names: string[]): Set<string> => {
    const seen = new Set<string>();
    const stack = [...names];
    while (stack.length > 0) {
      const name = normalisePypiName(stack.pop()!);
      if (seen.has(name)) continue;
      seen.add(name);
      const pkg = byName.get(name);
      for (const dep of [...(pkg?.dependencies ?? []), ...Object.values(pkg?.['optional-dependencies'] ?? {}).flat()]) stack.push(dep.name);
    }
    return seen;
  };
  const directNames = roots.flatMap((root) =>
    [...(root.dependencies ?? []), ...Object.values(root['optional-dependencies'] ?? {}).flat()].map((d) => normalisePypiName(d.name)),
  );
  const prod = reach(directNames);
  const components: Component[] = [];
  for (const pkg of packages) {
    if (isProject(pkg)) continue;
    const name = normalisePypiName(pkg.name);
    const src = pkg.source ?? {};
    const source: SourceKind = src.git ? 'git' : src.path || src.directory ? 'file' : src.url ? 'tarball' : 'registry';
    const hashed = Boolean(pkg.sdist?.hash) || (pkg.wheels ?? []).some((wheel) => Boolean(wheel.hash));
    const scope: DependencyScope = directNames.includes(name) ? 'direct' : prod.has(name) ? 'transitive' : 'development';
    const resolved =
      src.git ?? src.url ?? src.path ?? src.directory ?? (src.registry && /^http:/.test(src.registry) ? src.registry : undefined);
    components.push(
      pypi(
        pkg.name,
        pkg.version ?? 'unknown',
        path,
        scope,
        source,
        resolved,
        source === 'registry' || source === 'tarball' ? (hashed ? 'hashes' : null) : undefined,
      ),
    );
  }
  return { components, unpinned: [], notes: [] };
}
