import { build } from 'esbuild';
import { SourceMap } from 'node:module';
import { describe, expect, it } from 'vitest';
import { trimSourceMap } from '../../infra/bundling/trim-source-map.ts';
import { repositoryRoot } from '../../infra/paths.ts';

/** A minified ESM bundle of our code calling into two libraries, with its source map. */
async function bundleWithMap() {
  const result = await build({
    stdin: {
      contents: `import { ulid } from 'ulid';\nimport * as z from 'zod';\nexport function own(input) {\n  const id = ulid();\n  return z.object({ a: z.string() }).parse({ a: input + id });\n}\n`,
      resolveDir: repositoryRoot,
      sourcefile: 'own.js',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
    outfile: 'out.mjs',
    write: false,
  });
  const code = result.outputFiles.find((file) => file.path.endsWith('.mjs'))?.text ?? '';
  const map = JSON.parse(result.outputFiles.find((file) => file.path.endsWith('.map'))?.text ?? '{}');
  return { code, map };
}

describe('trimSourceMap', () => {
  it('keeps every mapping into our sources and maps positions inside a library to nothing', async () => {
    const { code, map } = await bundleWithMap();
    const trimmed = trimSourceMap(map);
    const before = new SourceMap(map);
    const after = new SourceMap({ ...map, ...trimmed });

    let own = 0;
    let library = 0;
    code.split('\n').forEach((line, lineNumber) => {
      for (let column = 0; column < line.length; column += 1) {
        const original = before.findEntry(lineNumber, column);
        if (!('originalSource' in original)) continue;
        const now = after.findEntry(lineNumber, column);
        if (original.originalSource.includes('node_modules/')) {
          library += 1;
          expect(now).toEqual({});
        } else {
          own += 1;
          expect(now).toEqual(original);
        }
      }
    });

    expect(own).toBeGreaterThan(20);
    expect(library).toBeGreaterThan(1000);
    expect(trimmed.sources).toEqual(map.sources.filter((source: string) => !source.includes('node_modules/')));
    expect(trimmed.mappings.length).toBeLessThan(map.mappings.length / 10);
  });
});
