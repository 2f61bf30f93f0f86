/**
 * `npm run build`: every engine of layers/engines.ts into layers/dist/ (bin/<engine>,
 * lib/<engine>/, assets/), the directory the dispatch function's layer mounts at /opt.
 * `buildEngines(dir)` builds them elsewhere (tests, `npm start`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINES } from './engines.ts';
import { buildMailscan } from './mailscan/build.ts';
import { buildNetscan } from './netscan/build.ts';
import { buildTlsscan } from './tlsscan/build.ts';
import { buildSecretscan } from './secretscan/build.ts';

export const LAYER_DIST = fileURLToPath(new URL('./dist/', import.meta.url));

/** How each engine is built to an executable path (dist/bin/<name>; lib/ and assets/ beside bin/). */
const BUILDERS: Readonly<Record<string, (outfile: string) => Promise<string>>> = {
  mailscan: buildMailscan,
  tlsscan: buildTlsscan,
  netscan: buildNetscan,
  secretscan: buildSecretscan,
};

/** Builds every engine under `dist`; returns each engine's executable by name. */
export async function buildEngines(dist: string = LAYER_DIST): Promise<Map<string, string>> {
  const built = new Map<string, string>();
  // One at a time: esbuild already uses every core for one bundle.
  for (const engine of ENGINES) {
    const builder = BUILDERS[engine.name] as ((outfile: string) => Promise<string>) | undefined;
    if (!builder) throw new Error(`engine ${engine.name} has no builder in layers/build.ts`);
    built.set(engine.name, await builder(join(dist, 'bin', engine.name)));
  }
  return built;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, bin] of await buildEngines()) process.stdout.write(`built ${name}: ${bin}\n`);
}
