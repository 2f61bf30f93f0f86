import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeInventory } from '../src/inventory.ts';
import { FIXTURES, loadTree, NPM_FIXTURES } from './tree.ts';

const brief = (dir: string) =>
  takeInventory(loadTree(join(FIXTURES, dir)))
    .components.map((c) => `${c.purl} ${c.scope}`)
    .sort();

describe('the lockfile readers', () => {
  it.each(NPM_FIXTURES)('read the same packages and dependency kinds from %s, made by its package manager', (dir) => {
    expect(brief(dir)).toEqual([
      'pkg:npm/%40types/ms@0.7.34 direct',
      'pkg:npm/debug@4.3.4 direct',
      'pkg:npm/is-number@6.0.0 development',
      'pkg:npm/is-odd@3.0.1 development',
      'pkg:npm/lodash@4.17.20 direct',
      'pkg:npm/ms@2.1.2 transitive',
    ]);
  });

  it('reads licences where the npm lockfile carries them (v2 and v3) and integrity hashes everywhere', () => {
    const v3 = takeInventory(loadTree(join(FIXTURES, 'npm-v3'))).components;
    expect(v3.every((c) => c.licenses?.[0] === 'MIT' && typeof c.integrity === 'string')).toBe(true);
    const yarn = takeInventory(loadTree(join(FIXTURES, 'yarn-v1'))).components;
    expect(yarn.every((c) => c.licenses === undefined && typeof c.integrity === 'string')).toBe(true);
  });

  it('reads Cargo.lock made by cargo, direct and development from Cargo.toml, the crate itself left out', () => {
    expect(brief('cargo')).toEqual(['pkg:cargo/itoa@1.0.1 direct', 'pkg:cargo/memchr@2.5.0 development']);
  });

  it('reads the hand-written formats (their tools and registries are not reachable here)', () => {
    const inventory = takeInventory(loadTree(join(FIXTURES, 'handwritten')));
    expect(inventory.failures).toEqual([]);
    const byFile = (file: string) =>
      inventory.components
        .filter((c) => c.lockfile === file)
        .map((c) => `${c.purl} ${c.scope} ${c.source}`)
        .sort();
    expect(byFile('python-req/requirements.txt')).toEqual([
      'pkg:pypi/jinja2@2.10 direct registry',
      'pkg:pypi/pkg-from-git@0123456789abcdef0123456789abcdef01234567 direct git',
      'pkg:pypi/requests@2.19.1 direct registry',
      'pkg:pypi/urllib3@1.23 direct registry',
    ]);
    expect(inventory.unpinned.map((u) => `${u.file}:${u.line} ${u.name} ${u.spec}`)).toEqual([
      'maven/pom.xml:17 com.google.guava:guava [30.0,)',
      'python-req/requirements.txt:7 flask >=1.0',
      'python-req/requirements.txt:8 Django (any version)',
    ]);
    expect(byFile('python-poetry/poetry.lock')).toEqual([
      'pkg:pypi/certifi@2018.4.16 transitive registry',
      'pkg:pypi/pytest@7.4.0 development registry',
      'pkg:pypi/requests@2.19.1 direct registry',
    ]);
    expect(byFile('python-pipenv/Pipfile.lock')).toEqual([
      'pkg:pypi/flake8@6.0.0 development registry',
      'pkg:pypi/pyyaml@5.3 direct registry',
      'pkg:pypi/six@1.16.0 direct registry',
    ]);
    expect(byFile('python-uv/uv.lock')).toEqual(['pkg:pypi/idna@2.8 direct registry', 'pkg:pypi/iniconfig@2.0.0 development registry']);
    expect(byFile('go/go.mod')).toEqual([
      'pkg:golang/github.com/gin-gonic/gin@v1.7.0 direct registry',
      'pkg:golang/github.com/local/thing@v0.0.0 direct file',
      'pkg:golang/golang.org/x/text@v0.3.7 transitive registry',
    ]);
    expect(byFile('ruby/Gemfile.lock')).toEqual([
      'pkg:gem/my_gem@0.1.0 direct git',
      'pkg:gem/nokogiri@1.13.1 direct registry',
      'pkg:gem/racc@1.6.0 transitive registry',
      'pkg:gem/rack@2.2.3 direct registry',
    ]);
    expect(byFile('php/composer.lock')).toEqual([
      'pkg:composer/guzzlehttp/guzzle@7.4.0 direct registry',
      'pkg:composer/phpunit/phpunit@9.5.0 development registry',
      'pkg:composer/psr/http-message@1.0.1 transitive registry',
    ]);
    expect(byFile('maven/pom.xml')).toEqual([
      'pkg:maven/junit/junit@4.13.2 development registry',
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1 direct registry',
    ]);
    expect(byFile('gradle/gradle.lockfile')).toEqual([
      'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.9.8 transitive registry',
      'pkg:maven/junit/junit@4.12 development registry',
    ]);
    expect(byFile('nuget/packages.lock.json')).toEqual([
      'pkg:nuget/Newtonsoft.Json@12.0.1 direct registry',
      'pkg:nuget/System.Text.Json@4.7.0 transitive registry',
    ]);
    expect(inventory.notes.some((note) => note.includes('pom.xml lists direct dependencies only'))).toBe(true);
  });

  it('names a manifest without its lockfile, and a workspace member covered by its root lockfile is not one', () => {
    const inventory = takeInventory(
      new Map([
        ['web/package.json', '{"dependencies":{"ms":"2.1.3"}}'],
        ['mono/package-lock.json', '{"lockfileVersion":3,"packages":{}}'],
        ['mono/packages/a/package.json', '{"dependencies":{"ms":"2.1.3"}}'],
        ['empty/package.json', '{"name":"no-deps"}'],
        ['rust/Cargo.toml', '[package]\nname="x"\n'],
        ['svc/go.mod', 'module x\n\nrequire golang.org/x/text v0.3.7\n'],
        ['app/Gemfile', 'gem "rack"\n'],
        ['php/composer.json', '{"require":{"monolog/monolog":"2.0.0"}}'],
        ['py/pyproject.toml', '[project]\nname="x"\ndependencies = ["requests==2.0"]\n'],
      ]),
    );
    expect(inventory.missing.map((m) => m.manifest).sort()).toEqual([
      'app/Gemfile',
      'php/composer.json',
      'py/pyproject.toml',
      'rust/Cargo.toml',
      'svc/go.mod',
      'web/package.json',
    ]);
  });

  it('reports what breaks a reader as that file failing, and still reads the others', () => {
    const inventory = takeInventory(
      new Map([
        ['a/package-lock.json', '{"lockfileVersion":3,"packages":{"node_modules/x":{}}}'],
        ['b/yarn.lock', 'garbage without a colon\n'],
        ['c/pnpm-lock.yaml', 'a: &a [*a, *a]\nb: &b [*a, *a]\nlockfileVersion: "9.0"\n'],
        ['d/composer.lock', '['.repeat(100_000)],
        [
          'e/Cargo.lock',
          '[[package]]\nname = "itoa"\nversion = "1.0.1"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "00"\n',
        ],
      ]),
    );
    expect(inventory.failures.map((f) => f.path).sort()).toEqual([
      'a/package-lock.json',
      'b/yarn.lock',
      'c/pnpm-lock.yaml',
      'd/composer.lock',
    ]);
    expect(inventory.components.map((c) => c.purl)).toEqual(['pkg:cargo/itoa@1.0.1']);
  });
});
