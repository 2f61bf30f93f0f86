/**
 * The repository's packages: every lockfile and manifest at the branch's head (DESIGN §18), parsed
 * by its format, and the manifests that have no lockfile beside them. Reads text only; nothing of
 * the repository is run.
 */
import { UnparseableLockfile, type Component, type ParsedFile, type UnpinnedDependency } from './component.ts';
import { parseCargoLock } from './lockfiles/cargo.ts';
import { parseComposerLock } from './lockfiles/composer.ts';
import { parseGoMod } from './lockfiles/go.ts';
import { parseGradleLockfile, parsePom } from './lockfiles/maven.ts';
import { parseNpmLock } from './lockfiles/npm.ts';
import { parseNugetLock } from './lockfiles/nuget.ts';
import { parsePnpmLock } from './lockfiles/pnpm.ts';
import { parsePipfileLock, parsePoetryLock, parseRequirements, parseUvLock } from './lockfiles/python.ts';
import { parseGemfileLock } from './lockfiles/ruby.ts';
import { parseYarnLock } from './lockfiles/yarn.ts';

const LOCKFILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'Cargo.lock',
  'go.mod',
  'Gemfile.lock',
  'composer.lock',
  'pom.xml',
  'gradle.lockfile',
  'packages.lock.json',
]);
const MANIFESTS = new Set(['package.json', 'pyproject.toml', 'Cargo.toml', 'Gemfile', 'composer.json', 'go.sum']);
export const OSV_SCANNER_TOML = 'osv-scanner.toml';

/** The file names a scan reads from the tree (the rest of the repository is never fetched as blobs). */
export function isWanted(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return LOCKFILES.has(base) || MANIFESTS.has(base) || base === OSV_SCANNER_TOML || /^requirements[\w.-]*\.txt$/.test(base);
}

export interface MissingLockfile {
  manifest: string;
  expected: string[];
}

export interface Inventory {
  components: Component[];
  unpinned: UnpinnedDependency[];
  missing: MissingLockfile[];
  /** The lockfiles and manifests read (coverage). */
  read: string[];
  failures: UnparseableLockfile[];
  notes: string[];
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash + 1);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Does `dir` or one of its parents hold one of `names`? (workspaces keep one lockfile at their root) */
function inThisOrParent(files: ReadonlyMap<string, string>, dir: string, names: readonly string[]): boolean {
  let current = dir;
  for (;;) {
    if (names.some((name) => files.has(`${current}${name}`))) return true;
    if (current === '') return false;
    current = dirOf(current.slice(0, -1));
  }
}

function hasDependencies(json: string | undefined, keys: readonly string[]): boolean {
  try {
    const value = JSON.parse(json ?? '{}') as Record<string, unknown>;
    return keys.some((key) => value[key] !== null && typeof value[key] === 'object' && Object.keys(value[key]).length > 0);
  } catch {
    return true;
  }
}

const NPM_LOCKS = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml'];

function missingLockfiles(files: ReadonlyMap<string, string>): MissingLockfile[] {
  const missing: MissingLockfile[] = [];
  for (const [path, text] of files) {
    const dir = dirOf(path);
    const base = baseOf(path);
    if (
      base === 'package.json' &&
      hasDependencies(text, ['dependencies', 'devDependencies', 'optionalDependencies']) &&
      !inThisOrParent(files, dir, NPM_LOCKS)
    ) {
      missing.push({ manifest: path, expected: NPM_LOCKS });
    } else if (
      base === 'pyproject.toml' &&
      /^\s*(dependencies\s*=\s*\[\s*["']|\[tool\.poetry\.dependencies\])/m.test(text) &&
      !inThisOrParent(files, dir, ['poetry.lock', 'uv.lock', 'pdm.lock', 'Pipfile.lock'])
    ) {
      missing.push({ manifest: path, expected: ['poetry.lock', 'uv.lock', 'pdm.lock'] });
    } else if (base === 'Cargo.toml' && !inThisOrParent(files, dir, ['Cargo.lock'])) {
      missing.push({ manifest: path, expected: ['Cargo.lock'] });
    } else if (base === 'Gemfile' && !files.has(`${dir}Gemfile.lock`)) {
      missing.push({ manifest: path, expected: ['Gemfile.lock'] });
    } else if (base === 'composer.json' && hasDependencies(text, ['require', 'require-dev']) && !files.has(`${dir}composer.lock`)) {
      missing.push({ manifest: path, expected: ['composer.lock'] });
    } else if (base === 'go.mod' && /^\s*require\b/m.test(text) && !files.has(`${dir}go.sum`)) {
      missing.push({ manifest: path, expected: ['go.sum'] });
    }
  }
  return missing;
}

function parseOne(files: ReadonlyMap<string, string>, path: string, text: string): ParsedFile | undefined {
  const dir = dirOf(path);
  const beside = (name: string): string | undefined => files.get(`${dir}${name}`);
  switch (baseOf(path)) {
    case 'package-lock.json':
    case 'npm-shrinkwrap.json':
      // npm reads a shrinkwrap in preference to a package-lock in the same folder.
      if (baseOf(path) === 'package-lock.json' && files.has(`${dir}npm-shrinkwrap.json`)) return undefined;
      return parseNpmLock(path, text, beside('package.json'));
    case 'yarn.lock':
      return parseYarnLock(path, text, beside('package.json'));
    case 'pnpm-lock.yaml':
      return parsePnpmLock(path, text);
    case 'poetry.lock':
      return parsePoetryLock(path, text, beside('pyproject.toml'));
    case 'Pipfile.lock':
      return parsePipfileLock(path, text);
    case 'uv.lock':
      return parseUvLock(path, text);
    case 'Cargo.lock':
      return parseCargoLock(path, text, beside('Cargo.toml'));
    case 'go.mod':
      return parseGoMod(path, text, files.has(`${dir}go.sum`));
    case 'Gemfile.lock':
      return parseGemfileLock(path, text);
    case 'composer.lock':
      return parseComposerLock(path, text, beside('composer.json'));
    case 'pom.xml':
      return parsePom(path, text);
    case 'gradle.lockfile':
      return parseGradleLockfile(path, text);
    case 'packages.lock.json':
      return parseNugetLock(path, text);
    default:
      return /^requirements[\w.-]*\.txt$/.test(baseOf(path)) ? parseRequirements(path, text) : undefined;
  }
}

/** Every lockfile and manifest of `files` (path → text), parsed. */
export function takeInventory(files: ReadonlyMap<string, string>): Inventory {
  const inventory: Inventory = { components: [], unpinned: [], missing: missingLockfiles(files), read: [], failures: [], notes: [] };
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    let parsed: ParsedFile | undefined;
    try {
      parsed = parseOne(files, path, text);
    } catch (error) {
      // Whatever a parser trips on in a hostile file is that file's failure, not the scan's.
      inventory.failures.push(
        error instanceof UnparseableLockfile
          ? error
          : new UnparseableLockfile(path, error instanceof Error ? error.message : String(error)),
      );
      continue;
    }
    if (!parsed) continue;
    inventory.read.push(path);
    inventory.components.push(...parsed.components);
    inventory.unpinned.push(...parsed.unpinned);
    inventory.notes.push(...parsed.notes);
  }
  return inventory;
}
