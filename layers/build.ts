/**
 * `npm run build`: every engine of layers/manifests.ts into layers/dist/ (bin/<engine>,
 * lib/<engine>/, assets/), the directory the dispatch function's layer mounts at /opt;
 * `npx tsx layers/build.ts medscan tlsscan` builds only those, there.
 * `buildEngines(dir)` builds them elsewhere (tests, `npm start`); `buildEngineOf(name, outfile)`
 * builds one. An engine builds from its manifest's `entry` through the kit's buildEngine, unless
 * its manifest names a build of its own (`build`, e.g. mailscan's snapshot and VMC roots).
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EngineManifest } from '../lib/engine-manifest.ts';
import { buildEngine } from './engine-kit/build-engine.ts';
import { MANIFESTS } from './manifests.ts';

export const LAYER_DIST = fileURLToPath(new URL('./dist/', import.meta.url));

/** The engine's folder: layers/<name>/. */
export function engineFolder(manifest: EngineManifest): string {
  return fileURLToPath(new URL(`./${manifest.name}/`, import.meta.url));
}

/** Builds one engine's executable at `outfile` (lib/ and assets/ beside bin/); returns it. */
export async function buildManifest(manifest: EngineManifest, outfile: string): Promise<string> {
  const folder = engineFolder(manifest);
  if (manifest.build) {
    const module = (await import(pathToFileURL(join(folder, manifest.build)).href)) as { build?: (outfile: string) => Promise<string> };
    if (typeof module.build !== 'function') throw new Error(`${manifest.name}'s build module ${manifest.build} exports no build(outfile)`);
    return module.build(outfile);
  }
  return buildEngine({ name: manifest.name, entry: join(folder, manifest.entry), outfile });
}

/** Builds the engine named `name` (layers/manifests.ts) at `outfile`. */
export function buildEngineOf(name: string, outfile: string): Promise<string> {
  const manifest = MANIFESTS.find((candidate) => candidate.name === name);
  if (!manifest) throw new Error(`no engine ${name} in layers/manifests.ts`);
  return buildManifest(manifest, outfile);
}

/** Builds every engine under `dist`; returns each engine's executable by name. */
export async function buildEngines(dist: string = LAYER_DIST): Promise<Map<string, string>> {
  const built = new Map<string, string>();
  // One at a time: esbuild already uses every core for one bundle.
  for (const manifest of MANIFESTS) built.set(manifest.name, await buildManifest(manifest, join(dist, 'bin', manifest.name)));
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  if (names.length === 0) for (const [name, bin] of await buildEngines()) process.stdout.write(`built ${name}: ${bin}\n`);
  else for (const name of names) process.stdout.write(`built ${name}: ${await buildEngineOf(name, join(LAYER_DIST, 'bin', name))}\n`);
}
