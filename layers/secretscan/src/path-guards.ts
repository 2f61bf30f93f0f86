/**
 * The false-positive guards users expect from gitleaks and trufflehog, decided from a file's path
 * and bytes. Binary files are not text and go to no rule; the rest stay under the provider rules
 * (a real token in a test or a bundle is still a leak) and only leave the entropy rule, whose
 * random-looking values are there by design: integrity hashes in lock files, mangled names in
 * minified bundles, made-up keys in test fixtures.
 */
const LOCK_FILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'cargo.lock',
  'gemfile.lock',
  'poetry.lock',
  'pipfile.lock',
  'composer.lock',
  'go.sum',
  'mix.lock',
  'pubspec.lock',
  'podfile.lock',
  'packages.lock.json',
  'flake.lock',
  'gradle.lockfile',
  'uv.lock',
]);

const TEST_SEGMENTS = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  'fixtures',
  '__fixtures__',
  'testdata',
  'test-data',
  '__mocks__',
  'mocks',
]);
const TEST_FILE = /(?:\.(?:test|spec)\.[a-z0-9]+|_test\.go|_spec\.rb|^test_[^/]+\.py)$/i;
const MINIFIED_FILE = /[.-]min\.(?:js|mjs|cjs|css)$/i;

export type EntropyGuard = 'lock_file' | 'minified' | 'test_fixture';

/** Why the entropy rule skips this path, or null when it runs. */
export function entropyGuardForPath(path: string): EntropyGuard | null {
  const segments = path.split('/');
  const name = segments.at(-1)!.toLowerCase();
  if (LOCK_FILES.has(name) || name.endsWith('.lock')) return 'lock_file';
  if (MINIFIED_FILE.test(name)) return 'minified';
  if (TEST_FILE.test(name) || segments.slice(0, -1).some((segment) => TEST_SEGMENTS.has(segment.toLowerCase()))) return 'test_fixture';
  return null;
}

/** A bundle whatever its name: long, and made of very long lines (a minifier's output). */
export function looksMinified(text: string): boolean {
  if (text.length < 4096) return false;
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines += 1;
  return text.length / lines > 400;
}

/** Git's own test (buffer_is_binary): a NUL byte in the first 8000 bytes. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).indexOf(0) !== -1;
}
