import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaEsbuildOptions } from '../../infra/bundling/lambda-bundle.ts';
import { rootRelativeSources, trimSourceMap } from '../../infra/bundling/trim-source-map.ts';
import { repositoryRoot } from '../../infra/paths.ts';

// A fixture bundled as ServiceFunction bundles a Lambda function (minified ESM, the stack-trace
// module injected, the map trimmed and named from the repository root), then run in a fresh Node.
const FIXTURE = 'test/fixtures/stack-traces/explode.ts';
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stack-traces-'));
  bundle = join(dir, 'index.mjs');
  await build({ ...lambdaEsbuildOptions(), entryPoints: [join(repositoryRoot, FIXTURE)], outfile: bundle });
  const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8'));
  writeFileSync(`${bundle}.map`, JSON.stringify(rootRelativeSources(trimSourceMap(map), dir, repositoryRoot)));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Imports the bundle in a fresh Node, calls callsExplode('boom') and prints what `script` returns. */
function run(script: string, nodeArgs: string[] = [], output: 'stdout' | 'stderr' = 'stdout'): string {
  const source =
    `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)});\n` +
    `let error; try { m.callsExplode('boom'); } catch (caught) { error = caught; }\n${script}`;
  const result = spawnSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', source], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`node exited ${result.status}: ${result.stderr}`);
  return result[output];
}

const stackLines = (stack: string) => stack.trim().split('\n');

describe('bundle stack traces', () => {
  it('maps frames inside the bundle to the TypeScript source when the stack is read', () => {
    const [header, first, second, caller] = stackLines(run('process.stdout.write(error.stack);'));
    expect(header).toBe('Error: exploded: boom');
    // Named as its caller in the bundle calls it; the outermost frame keeps its minified name.
    expect(first).toMatch(/^ {4}at explodeDeep \(test\/fixtures\/stack-traces\/explode\.ts:5:\d+\)$/);
    expect(second).toMatch(/^ {4}at \S+ \(test\/fixtures\/stack-traces\/explode\.ts:9:\d+\)$/);
    // The script that imported the bundle is not in it: V8's own frame text, unchanged.
    expect(caller).toMatch(/^ {4}at file:\/\/\/.*\[eval1\]:2:\d+$/);
  });

  it('gives the Powertools Logger the source location of an error', () => {
    const line = run("m.logger.error('failed', error);", [], 'stderr').trim();
    const logged = JSON.parse(line);
    expect(logged.error.location).toMatch(/^test\/fixtures\/stack-traces\/explode\.ts:5$/);
    expect(logged.error.stack).toContain('explode.ts:9:');
  });

  it('reads the map at the first stack, not when the bundle loads', () => {
    // The map is removed after the import and before the stack is first read: read lazily, the
    // stack is unmapped; read at load (as --enable-source-maps does), it would still be mapped.
    const map = readFileSync(`${bundle}.map`, 'utf8');
    try {
      const script = `(await import('node:fs')).rmSync(${JSON.stringify(`${bundle}.map`)});\nprocess.stdout.write(error.stack);`;
      expect(stackLines(run(script))[1]).toMatch(/index\.mjs:\d+:\d+\)$/);
    } finally {
      writeFileSync(`${bundle}.map`, map);
    }
  });

  it('leaves positions in the bundle when the map is missing or unreadable, and never throws', () => {
    const map = readFileSync(`${bundle}.map`, 'utf8');
    try {
      rmSync(`${bundle}.map`);
      const [header, first] = stackLines(run('process.stdout.write(error.stack);'));
      expect(header).toBe('Error: exploded: boom');
      expect(first).toMatch(/index\.mjs:\d+:\d+\)$/);
      writeFileSync(`${bundle}.map`, '{ not json');
      expect(stackLines(run('process.stdout.write(error.stack);'))[1]).toMatch(/index\.mjs:\d+:\d+\)$/);
    } finally {
      writeFileSync(`${bundle}.map`, map);
    }
  });

  it("stands aside for Node's own --enable-source-maps and for a prepareStackTrace someone else set", () => {
    expect(run('process.stdout.write(Error.prepareStackTrace.name);', ['--enable-source-maps'])).toBe('ErrorPrepareStackTrace');
    const custom = run('process.stdout.write(error.stack);', ['--import', 'data:text/javascript,Error.prepareStackTrace=()=>"custom"']);
    expect(custom).toBe('custom');
  });
});
