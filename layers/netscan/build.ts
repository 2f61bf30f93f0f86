/**
 * Builds netscan for the Lambda layer: dist/bin/netscan (the launcher) and dist/lib/ (the split
 * ESM bundle), like every engine (layers/engine-kit/build-engine.ts). netscan reads no data file
 * at run time: the top ports are compiled in (src/ports/top-tcp-ports.ts).
 */
import { fileURLToPath } from 'node:url';
import { buildEngineOf } from '../build.ts';

export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/netscan', import.meta.url));

export function buildNetscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngineOf('netscan', outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildNetscan();
  process.stdout.write(`built ${outfile}\n`);
}
