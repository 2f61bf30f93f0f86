/**
 * Bundles the CLI into one executable file, dist/bin/mailscan, which the Lambda layer mounts as
 * /opt/bin/mailscan, and copies its data files to dist/assets/ (/opt/assets/ in the layer). `npm run build` runs this; tests call `buildMailscan()` with their own outfile.
 */
import { chmod, cp } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { installVmcRoots } from './vmc-roots.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/mailscan.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/mailscan', import.meta.url));
const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));

export async function buildMailscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  await build({
    entryPoints: [ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // The shebang makes the file executable on its own; createRequire lets bundled CommonJS
    // dependencies (dns-packet) require Node built-ins from an ES module.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __mailscanCreateRequire } from 'node:module';\nconst require = __mailscanCreateRequire(import.meta.url);" },
    legalComments: 'none',
    logLevel: 'warning',
  });
  await chmod(outfile, 0o755);
  // Data files (the bundled VMC roots) sit beside bin/, as the layer mounts them: /opt/bin, /opt/assets.
  await cp(ASSETS, join(dirname(outfile), '..', 'assets'), { recursive: true });
  await installVmcRoots(join(dirname(outfile), '..', 'assets', 'vmc-roots'));
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildMailscan();
  process.stdout.write(`built ${outfile}\n`);
}
