/**
 * Builds an engine for the Lambda layer (docs/engine-contract.md, docs/mailscan-startup.md):
 * dist/bin/<engine>, a small executable launcher the layer mounts as /opt/bin/<engine>, and
 * dist/lib/<engine>/, the minified ES-module bundle split into chunks so each command loads only
 * what it runs (`--version` does not parse the scan). Data files go to dist/assets/ (/opt/assets/).
 * Every engine builds into the same dist/ (layers/build.ts), which the dispatch layer mounts.
 */
import { chmod, cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';

/**
 * Node built-ins reached through `require` instead of an ES import. Importing a built-in as an ES
 * module makes Node build its ES facade, which reads every export once, lazy ones included:
 * `node:http`'s WebSocket getters load undici, ~150 ms of every scan's start-up that no scan uses.
 * Through `require` (the banner's createRequire), esbuild's interop reads an export only when the
 * code uses it.
 */
export const builtinsViaRequire: Plugin = {
  name: 'builtins-via-require',
  setup(builder) {
    builder.onResolve({ filter: /^node:/ }, (args) =>
      args.namespace === 'builtin-require' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin-require' },
    );
    builder.onLoad({ filter: /.*/, namespace: 'builtin-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * The executable turns on Node's module compile cache before loading the bundle, so every process
 * after the first in a Lambda environment (or on a machine) skips compiling it again.
 * <ENGINE>_COMPILE_CACHE names the folder; the default is under the OS temporary folder (/tmp in
 * Lambda), one per user. A cache entry is code every later process runs, so the cache is used only
 * in a folder of this user's that no one else may write to (outside Lambda the temporary folder is
 * shared). A folder it cannot use only turns the cache off. node:fs through getBuiltinModule: an
 * ES import of a built-in reads every export, and fs.promises is a lazy one.
 */
function launcher(name: string): string {
  const variable = `${name.toUpperCase()}_COMPILE_CACHE`;
  return `#!/usr/bin/env node
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
try {
  const { mkdirSync, statSync } = process.getBuiltinModule('node:fs');
  const uid = process.getuid?.();
  const folder = process.env.${variable} || join(tmpdir(), \`${name}-compile-cache-\${uid ?? 'user'}\`);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const info = statSync(folder);
  if (info.isDirectory() && (uid === undefined || info.uid === uid) && (info.mode & 0o022) === 0) module.enableCompileCache?.(folder);
} catch {
  // No cache: slower start, same result.
}
await import('../lib/${name}/${name}.js');
`;
}

export interface BuildEngineOptions {
  /** The executable's name (tlsscan). */
  name: string;
  /** src/bin/<engine>.ts */
  entry: string;
  /** dist/bin/<engine>; lib/<engine>/ and assets/ go beside bin/. */
  outfile: string;
  /** A folder copied to dist/assets/. */
  assets?: string;
  /** More entry points, by output name (lib/<engine>/<name>.js): modules loaded by path, not only through the main entry. */
  extraEntries?: Readonly<Record<string, string>>;
}

export async function buildEngine({ name, entry, outfile, assets, extraEntries = {} }: BuildEngineOptions): Promise<string> {
  const root = join(dirname(outfile), '..');
  const lib = join(root, 'lib', name);
  await rm(lib, { recursive: true, force: true });
  const requireName = `__${name}CreateRequire`;
  await build({
    entryPoints: { ...extraEntries, [name]: entry },
    outdir: lib,
    outExtension: { '.js': '.js' },
    bundle: true,
    splitting: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // createRequire lets bundled CommonJS dependencies require Node built-ins from an ES module;
    // every chunk gets it, since any chunk may hold such a dependency.
    banner: { js: `import { createRequire as ${requireName} } from 'node:module';const require = ${requireName}(import.meta.url);` },
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [builtinsViaRequire],
  });
  // The bundle is ES modules named .js: a package.json beside them says so without a build-time rename.
  await writeFile(join(lib, 'package.json'), '{ "type": "module" }\n');
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, launcher(name));
  await chmod(outfile, 0o755);
  if (assets) await cp(assets, join(root, 'assets'), { recursive: true });
  return outfile;
}
