/**
 * Builds the CLI for the Lambda layer: dist/bin/mailscan, a small executable launcher the layer
 * mounts as /opt/bin/mailscan, and dist/lib/, the minified ES-module bundle split into chunks so
 * each command loads only what it runs (`--version` does not parse the scan, `rules` does not
 * parse X.509); data files go to dist/assets/ (/opt/assets/). `npm run build` runs this; tests call
 * `buildMailscan()` with their own outfile (the launcher's path; lib/ and assets/ go beside bin/).
 * Every engine is built the same way (layers/engine-kit/build-engine.ts); why the launcher and the
 * compile cache: docs/mailscan-startup.md.
 */
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEngine } from '../engine-kit/build-engine.ts';
import { buildMailscanSnapshot } from './build-snapshot.ts';
import { snapshotBlobFor, snapshotScriptFor } from './src/snapshot-blob.ts';
import { installVmcRoots } from './vmc-roots.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/mailscan.ts', import.meta.url));
/** The opt-in surfaces' loaders, an entry of their own (lib/mailscan/on-demand.js): a scan from the start-up snapshot loads them from there. */
export const ON_DEMAND_ENTRY = fileURLToPath(new URL('./src/on-demand.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('../dist/bin/mailscan', import.meta.url));
const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));

export interface BuildMailscanOptions {
  /** Also write the start-up snapshot (dist/snapshots/mailscan.blob and its script); on by default. Off removes older ones, which would run older code. */
  snapshot?: boolean;
}

export async function buildMailscan(outfile: string = DEFAULT_OUTFILE, options: BuildMailscanOptions = {}): Promise<string> {
  await buildEngine({ name: 'mailscan', entry: ENTRY, outfile, assets: ASSETS, extraEntries: { 'on-demand': ON_DEMAND_ENTRY } });
  // Data files (the bundled VMC roots) sit beside bin/ and lib/, as the layer mounts them: /opt/assets.
  await installVmcRoots(join(dirname(outfile), '..', 'assets', 'vmc-roots'));
  // The start-up snapshot beside them (dist/snapshots/), made with this node; the runner uses it
  // only when its node accepts it (docs/mailscan-startup.md).
  if (options.snapshot === false)
    await Promise.all([snapshotBlobFor(outfile), snapshotScriptFor(outfile)].map((path) => rm(path, { force: true })));
  else await buildMailscanSnapshot(outfile);
  return outfile;
}

/** The manifest's build hook (layers/build.ts): mailscan's own build, snapshot included. */
export function build(outfile: string): Promise<string> {
  return buildMailscan(outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildMailscan();
  process.stdout.write(`built ${outfile}\n`);
}
