/**
 * Builds vdiscan for the Lambda layer: dist/bin/vdiscan (the launcher) and dist/lib/ (the split
 * ESM bundle), like every engine (layers/engine-kit/build-engine.ts). vdiscan reads no data file
 * at run time: its bulletin table is compiled in (src/bulletins.ts).
 */
import { fileURLToPath } from 'node:url';
import { buildEngineOf } from '../build.ts';

export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/vdiscan', import.meta.url));

export function buildVdiscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngineOf('vdiscan', outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildVdiscan();
  process.stdout.write(`built ${outfile}\n`);
}
