/**
 * Builds medscan for the Lambda layer: dist/bin/medscan (the launcher) and dist/lib/ (the split
 * ESM bundle), like every engine (layers/engine-kit/build-engine.ts). medscan reads no data file
 * at run time.
 */
import { fileURLToPath } from 'node:url';
import { buildEngineOf } from '../build.ts';

export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/medscan', import.meta.url));

export function buildMedscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngineOf('medscan', outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildMedscan();
  process.stdout.write(`built ${outfile}\n`);
}
