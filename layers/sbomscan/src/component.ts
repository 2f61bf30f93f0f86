/**
 * One package a lockfile or manifest resolves (DESIGN §18): its purl, where it was read, and how
 * the project depends on it. Parsers produce these; the rules and the CycloneDX document read them.
 */
export type Ecosystem = 'npm' | 'pypi' | 'cargo' | 'golang' | 'gem' | 'composer' | 'maven' | 'nuget';

/** direct: the project names it; transitive: something else pulled it in; development: only for building or testing. */
export type DependencyScope = 'direct' | 'transitive' | 'development';

/** Where a package's bytes come from, as the lockfile says. */
export type SourceKind = 'registry' | 'git' | 'tarball' | 'file';

export interface Component {
  ecosystem: Ecosystem;
  /** The ecosystem's namespace (npm scope without '@', Maven group, Go module path head, Composer vendor). */
  namespace?: string;
  name: string;
  version: string;
  purl: string;
  /** The lockfile or manifest path in the repository. */
  lockfile: string;
  scope: DependencyScope;
  /** SPDX expressions the lockfile declares, when its format carries one. */
  licenses?: string[];
  source: SourceKind;
  /** The URL the lockfile resolves it from, when it names one. */
  resolved?: string;
  /**
   * The integrity hash: a string when present, null when the format carries one and this entry
   * lacks it, undefined when the format has none.
   */
  integrity?: string | null;
}

/** A dependency written as a range where a version was expected (requirements, pom). */
export interface UnpinnedDependency {
  file: string;
  line: number;
  name: string;
  spec: string;
}

/** What one lockfile or manifest yields. */
export interface ParsedFile {
  components: Component[];
  unpinned: UnpinnedDependency[];
  /** Said in the detail of the checks that read this file (pom.xml lists direct dependencies only). */
  notes: string[];
}

const PURL_TYPE: Record<Ecosystem, string> = {
  npm: 'npm',
  pypi: 'pypi',
  cargo: 'cargo',
  golang: 'golang',
  gem: 'gem',
  composer: 'composer',
  maven: 'maven',
  nuget: 'nuget',
};

/** purl-spec's percent-encoding of one segment (':' and '/' are not separators inside a segment). */
function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':');
}

/** The purl of a package (purl-spec: type, namespace segments, name, version). */
export function purlOf(ecosystem: Ecosystem, name: string, version: string, namespace?: string): string {
  const ns = namespace ? `${namespace.split('/').map(encodeSegment).join('/')}/` : '';
  return `pkg:${PURL_TYPE[ecosystem]}/${ns}${encodeSegment(name)}@${encodeSegment(version)}`;
}

/** An npm package name split into purl namespace (`@scope` → `%40scope`) and name. */
export function npmNameParts(fullName: string): { namespace?: string; name: string } {
  if (fullName.startsWith('@')) {
    const slash = fullName.indexOf('/');
    return { namespace: fullName.slice(0, slash), name: fullName.slice(slash + 1) };
  }
  return { name: fullName };
}

/** PEP 503 normalisation, as purl-spec asks for pypi names. */
export function normalisePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

export function makeComponent(fields: Omit<Component, 'purl'>): Component {
  return { ...fields, purl: purlOf(fields.ecosystem, fields.name, fields.version, fields.namespace) };
}

/** A lockfile or manifest that cannot be read; its path and why go into the error entry. */
export class UnparseableLockfile extends Error {
  override readonly name = 'UnparseableLockfile';
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path} cannot be parsed: ${reason}`);
  }
}

/** A JSON lockfile's top-level object, or an UnparseableLockfile naming the file. */
export function parseJsonObject<T extends object>(path: string, text: string): Partial<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UnparseableLockfile(path, 'not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UnparseableLockfile(path, 'not a JSON object');
  return value;
}

/** A lockfile's scalar as text ('' for anything else): YAML and TOML values may be numbers or dates. */
export function scalarText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/** The source of a URL-ish `resolved` value. */
export function sourceOfUrl(resolved: string | undefined): SourceKind {
  if (resolved === undefined || resolved === '') return 'registry';
  if (/^git(\+|:)|^github:|^gitlab:|^bitbucket:|\.git(#|$)/.test(resolved)) return 'git';
  if (/^file:|^link:|^\.\.?\//.test(resolved)) return 'file';
  return 'registry';
}
