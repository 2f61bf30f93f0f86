/**
 * Builds the CLI for the Lambda layer: dist/bin/mailscan, a small executable launcher the layer
 * mounts as /opt/bin/mailscan, and dist/lib/, the minified ES-module bundle split into chunks so
 * each command loads only what it runs (`--version` does not parse the scan, `rules` does not
 * parse X.509); data files go to dist/assets/ (/opt/assets/). `npm run build` runs this; tests call
 * `buildMailscan()` with their own outfile (the launcher's path; lib/ and assets/ go beside bin/).
 * Why the launcher and the compile cache: docs/mailscan-startup.md.
 */
import { chmod, cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { installVmcRoots } from './vmc-roots.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/mailscan.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/mailscan', import.meta.url));
const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));

/**
 * The executable. It turns on Node's module compile cache before loading the bundle, so every
 * process after the first in a Lambda environment (or on a machine) skips compiling it again.
 * MAILSCAN_COMPILE_CACHE names the folder (the local runtime puts it under DATA_DIR); the default
 * is the OS temporary folder, which is /tmp, the one writable place in Lambda. Node checks each
 * cached entry against the source, and a folder it cannot use only turns the cache off: the scan
 * runs either way.
 */
const LAUNCHER = `#!/usr/bin/env node
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
try {
  module.enableCompileCache?.(process.env.MAILSCAN_COMPILE_CACHE || join(tmpdir(), 'mailscan-compile-cache'));
} catch {
  // No cache: slower start, same result.
}
await import('../lib/mailscan.js');
`;

export async function buildMailscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  const root = join(dirname(outfile), '..');
  const lib = join(root, 'lib');
  await rm(lib, { recursive: true, force: true });
  await build({
    entryPoints: { mailscan: ENTRY },
    outdir: lib,
    outExtension: { '.js': '.js' },
    bundle: true,
    splitting: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // createRequire lets bundled CommonJS dependencies (dns-packet) require Node built-ins from an
    // ES module; every chunk gets it, since any chunk may hold such a dependency.
    banner: {
      js: "import { createRequire as __mailscanCreateRequire } from 'node:module';const require = __mailscanCreateRequire(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'warning',
  });
  // The bundle is ES modules named .js: a package.json beside them says so without a build-time rename.
  await writeFile(join(lib, 'package.json'), '{ "type": "module" }\n');
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, LAUNCHER);
  await chmod(outfile, 0o755);
  // Data files (the bundled VMC roots) sit beside bin/ and lib/, as the layer mounts them: /opt/assets.
  await cp(ASSETS, join(root, 'assets'), { recursive: true });
  await installVmcRoots(join(root, 'assets', 'vmc-roots'));
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildMailscan();
  process.stdout.write(`built ${outfile}\n`);
}
