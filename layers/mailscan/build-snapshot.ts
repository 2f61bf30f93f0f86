/**
 * Builds the mailscan start-up snapshot (docs/mailscan-startup.md): the CLI bundled into one
 * CommonJS file (a snapshot cannot hold ES modules), run once by `node --build-snapshot`, which
 * saves the heap with every module of a scan initialised. The blob works only with the exact node
 * binary that made it, so `node` must be the one the runner starts (the runner checks, and falls
 * back to the plain bundle when that node rejects it). The CommonJS file is not kept.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { builtinsViaRequire } from '../engine-kit/build-engine.ts';
import { snapshotBlobFor } from './src/snapshot-blob.ts';

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
  const work = await mkdtemp(join(tmpdir(), 'mailscan-snapshot-'));
  try {
    const script = join(work, 'mailscan-snapshot.cjs');
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
    await mkdir(dirname(blob), { recursive: true });
    // --no-warnings: node warns that dgram, dns/promises and async_hooks are "not yet fully
    // verified" in a snapshot; none of them holds state at import (the CLI tests run through it).
    await promisify(execFile)(node, ['--no-warnings', '--snapshot-blob', blob, '--build-snapshot', script], { cwd: work });
    return blob;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
