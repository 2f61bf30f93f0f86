/**
 * The independent references of DESIGN §18 on the same fixture repositories: @cyclonedx/cdxgen for
 * every format it reads offline and @cyclonedx/cyclonedx-npm for npm lockfiles. The sets of purls
 * must be equal (development dependencies included); every difference that is not in EXPLAINED
 * fails the test. Our SBOM document validates against the CycloneDX 1.6 JSON schema.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
const addFormats = formats as unknown as (ajv: Ajv) => void;
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapBounded } from '../../../lib/concurrency.ts';
import { REFERENCE_TOOLS_DIR, referenceTool } from '../../../scripts/reference-tools.ts';
import { buildBom } from '../src/cyclonedx.ts';
import { takeInventory } from '../src/inventory.ts';
import { FIXTURES, loadTree, NPM_FIXTURES } from './tree.ts';

const run = promisify(execFile);
const CDXGEN = referenceTool('cdxgen');
const CYCLONEDX_NPM_BIN = referenceTool('cyclonedx-npm');
const work = mkdtempSync(join(tmpdir(), 'sbomscan-reference-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Differences a reference run shows on purpose, and why (docs/sbomscan.md repeats them). */
const EXPLAINED: Record<string, { onlyTheirs?: string[]; onlyOurs?: string[]; why: string }> = {
  cargo: { onlyTheirs: ['pkg:cargo/fixture-crate@0.1.0'], why: 'cdxgen lists the crate being built; it is the project, not a dependency' },
  'handwritten/python-req': {
    onlyTheirs: ['pkg:pypi/django', 'pkg:pypi/flask@1.0', 'pkg:pypi/pkg-from-git'],
    onlyOurs: ['pkg:pypi/pkg-from-git@0123456789abcdef0123456789abcdef01234567'],
    why: "cdxgen lists unpinned lines with no version or the range's bound as one; we report them as sbom.dependency.unpinned, and name a git requirement by its commit",
  },
  'handwritten/python-pipenv': {
    onlyOurs: ['pkg:pypi/flake8@6.0.0', 'pkg:pypi/pyyaml@5.3', 'pkg:pypi/six@1.16.0'],
    why: 'cdxgen reads no Pipfile.lock without a Pipfile beside it',
  },
  'handwritten/go': { onlyTheirs: ['pkg:golang/../thing'], why: "cdxgen also lists a replace directive's local path as a module" },
  'handwritten/gradle': {
    onlyOurs: ['pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.9.8', 'pkg:maven/junit/junit@4.12'],
    why: 'cdxgen reads Gradle projects through the gradle binary, which is not installed here; it does not read gradle.lockfile alone',
  },
  'handwritten/maven': {
    onlyTheirs: ['pkg:maven/com.google.guava/guava@%5B30.0%2C)'],
    why: 'cdxgen lists a version range as a version; we report it unpinned',
  },
  'handwritten/nuget': { onlyTheirs: ['pkg:nuget/MyLib'], why: 'cdxgen lists project references; they are the solution itself' },
};

const CDXGEN_TYPE: Record<string, string> = {
  cargo: 'rust',
  'handwritten/python-req': 'python',
  'handwritten/python-poetry': 'python',
  'handwritten/python-pipenv': 'python',
  'handwritten/python-uv': 'python',
  'handwritten/go': 'go',
  'handwritten/ruby': 'ruby',
  'handwritten/php': 'php',
  'handwritten/maven': 'java',
  'handwritten/gradle': 'java',
  'handwritten/nuget': 'dotnet',
  ...Object.fromEntries(NPM_FIXTURES.map((dir) => [dir, 'js'])),
};

/** A purl without its qualifiers (cdxgen adds ?type=jar, ?platform=…), which identity does not need. */
const bare = (purl: string) => purl.replace(/\?.*$/, '');

function ours(dir: string): string[] {
  return [...new Set(takeInventory(loadTree(join(FIXTURES, dir))).components.map((c) => c.purl))].sort();
}

function purlsOf(bomFile: string): string[] {
  const bom = JSON.parse(readFileSync(bomFile, 'utf8')) as { components?: Array<{ purl?: string }> };
  return [...new Set((bom.components ?? []).map((c) => bare(c.purl ?? '')))].filter(Boolean).sort();
}

// cdxgen would run Maven for a pom (and Maven would try Maven Central); /bin/false makes it read the pom itself, as it does without Maven.
const REFERENCE_ENV = {
  ...process.env,
  FETCH_LICENSE: 'false',
  CDXGEN_NO_BANNER: 'true',
  DO_NOT_TRACK: '1',
  CDXGEN_TEMP_DIR: work,
  NODE_OPTIONS: '',
  MVN_CMD: '/bin/false',
  MAVEN_CMD: '/bin/false',
};

async function cdxgen(dir: string): Promise<string[]> {
  const copy = join(work, dir.replace(/\//g, '_'));
  cpSync(join(FIXTURES, dir), copy, { recursive: true });
  const out = join(copy, 'cdxgen-bom.json');
  await run(CDXGEN!, ['-t', CDXGEN_TYPE[dir], '--no-install-deps', '--no-recurse', '-o', out, copy], {
    env: REFERENCE_ENV,
    timeout: 120_000,
  });
  return purlsOf(out);
}

async function cyclonedxNpm(dir: string): Promise<string[]> {
  const copy = join(work, `npm_${dir}`);
  cpSync(join(FIXTURES, dir), copy, { recursive: true });
  const out = join(copy, 'cyclonedx-npm-bom.json');
  await run(CYCLONEDX_NPM_BIN!, ['--package-lock-only', '--output-format', 'JSON', '--output-file', out], {
    cwd: copy,
    env: REFERENCE_ENV,
    timeout: 120_000,
  });
  return purlsOf(out);
}

function expectSameUnlessExplained(dir: string, theirs: string[]): void {
  const mine = ours(dir);
  const explained = EXPLAINED[dir] ?? { why: '' };
  expect({ onlyOurs: mine.filter((p) => !theirs.includes(p)).sort(), onlyTheirs: theirs.filter((p) => !mine.includes(p)).sort() }).toEqual({
    onlyOurs: [...(explained.onlyOurs ?? [])].sort(),
    onlyTheirs: [...(explained.onlyTheirs ?? [])].sort(),
  });
}

const CYCLONEDX_NPM = ['npm-v2', 'npm-v3', 'npm-shrinkwrap'];

// .ci/run installs the reference tools (npm run reference-tools) and fails when they are missing; elsewhere this says it is skipped.
if (!CDXGEN || !CYCLONEDX_NPM_BIN)
  console.warn('SKIPPED: cdxgen / cyclonedx-npm are not installed (npm run reference-tools): the sbomscan reference comparison is skipped');

describe.skipIf(!CDXGEN || !CYCLONEDX_NPM_BIN)('sbomscan against its references', () => {
  const references = new Map<string, string[]>();
  beforeAll(async () => {
    // Two reference processes at once: each is mostly node's and cdxgen's start-up.
    const runs = [...Object.keys(CDXGEN_TYPE).map((dir) => ['cdxgen', dir]), ...CYCLONEDX_NPM.map((dir) => ['cyclonedx-npm', dir])];
    await mapBounded(runs, 2, async ([tool, dir]) =>
      references.set(`${tool} ${dir}`, tool === 'cdxgen' ? await cdxgen(dir) : await cyclonedxNpm(dir)),
    );
  }, 300_000);

  it.each(Object.keys(CDXGEN_TYPE))('lists the purls cdxgen lists for %s', (dir) => {
    expectSameUnlessExplained(dir, references.get(`cdxgen ${dir}`)!);
  });

  it.each(CYCLONEDX_NPM)('lists the purls cyclonedx-npm lists for %s', (dir) => {
    expectSameUnlessExplained(dir, references.get(`cyclonedx-npm ${dir}`)!);
  });

  it('writes an SBOM that validates against the CycloneDX 1.6 JSON schema', () => {
    const schemaDir = join(REFERENCE_TOOLS_DIR, 'node_modules', '@cyclonedx', 'cdxgen', 'data');
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true, logger: false });
    addFormats(ajv);
    // ajv-formats has no IRI formats; the URLs our SBOM writes are plain URIs, checked as such.
    ajv.addFormat('iri-reference', /^\S*$/);
    ajv.addFormat('iri', /^[a-z][a-z0-9+.-]*:\S*$/i);
    for (const name of ['spdx.schema.json', 'jsf-0.82.schema.json'])
      ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, name), 'utf8')) as object, name);
    const validate = ajv.compile(JSON.parse(readFileSync(join(schemaDir, 'bom-1.6.schema.json'), 'utf8')) as object);
    const components = [...NPM_FIXTURES, 'cargo', 'handwritten'].flatMap(
      (dir) => takeInventory(loadTree(join(FIXTURES, dir), `${dir}/`)).components,
    );
    const bom = buildBom(
      { repository: 'https://git.example/acme/app.git', branch: 'main', commit: 'a'.repeat(40), timestamp: '2026-11-28T00:00:00.000Z' },
      components,
    );
    const valid = validate(bom);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    expect((bom.components as unknown[]).length).toBeGreaterThan(30);
  });
});
