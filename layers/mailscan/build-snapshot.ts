/**
 * Builds the mailscan start-up snapshot (docs/mailscan-startup.md): the CLI bundled into one
 * CommonJS file (a snapshot cannot hold ES modules), run once by `node --build-snapshot`, which
 * saves the heap with every module of a scan initialised. The blob works only with the exact node
 * binary that made it, so `node` must be the one the runner starts (the runner checks, and falls
 * back to the plain bundle when that node rejects it). The CommonJS file is kept beside the blob
 * (snapshots/mailscan-snapshot.cjs): the Lambda layer ships it without the blob, and the runner
 * makes a blob from it with its own node.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { builtinsViaRequire } from '../engine-kit/build-engine.ts';
import { snapshotBlobFor, snapshotBuildArgs, snapshotScriptFor } from './src/snapshot-blob.ts';

const ENTRY = fileURLToPath(new URL('./src/bin/mailscan-snapshot.ts', import.meta.url));
const ON_DEMAND = fileURLToPath(new URL('./src/on-demand.ts', import.meta.url));
const SNAPSHOT_ON_DEMAND = fileURLToPath(new URL('./src/bin/snapshot-on-demand.ts', import.meta.url));

/**
 * The opt-in surfaces and the X.509 stack stay out of the snapshot's script: `on-demand.ts` becomes
 * `snapshot-on-demand.ts`, which loads them from the bundle when a scan asks for one. In the
 * script they would be ~1.7 MB of the blob (their source text is kept in the heap) that every
 * scan reads and deserialises at start-up.
 */
const onDemandFromBundle: Plugin = {
  name: 'on-demand-from-bundle',
  setup(builder) {
    builder.onResolve({ filter: /\/on-demand\.ts$/ }, (args) =>
      resolve(args.resolveDir, args.path) === ON_DEMAND ? { path: SNAPSHOT_ON_DEMAND } : undefined,
    );
  },
};

/** Writes the snapshot of the CLI whose executable is `bin`; returns the blob's path. */
export async function buildMailscanSnapshot(bin: string, node: string = process.execPath): Promise<string> {
  const blob = snapshotBlobFor(bin);
  const script = snapshotScriptFor(bin);
  await mkdir(dirname(blob), { recursive: true });
  await build({
    entryPoints: [ENTRY],
    outfile: script,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    // import.meta is empty in CommonJS; the snapshot's main function sets the bundle's URL.
    define: { 'import.meta.url': 'globalThis.__mailscanModuleUrl' },
    legalComments: 'none',
    logLevel: 'warning',
    // A snapshot has no dynamic import(): the built-ins a scan loads late (node:https) are
    // required, as in the engine bundles.
    plugins: [builtinsViaRequire, onDemandFromBundle],
  });
  await promisify(execFile)(node, snapshotBuildArgs(script, blob), { cwd: dirname(blob) });
  return blob;
}
