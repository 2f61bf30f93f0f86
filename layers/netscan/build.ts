/**
 * Builds netscan for the Lambda layer: dist/bin/netscan (the launcher) and dist/lib/ (the split
 * ESM bundle), like every engine (layers/engine-kit/build-engine.ts). netscan reads no data file
 * at run time: the top ports are compiled in (src/ports/top-tcp-ports.ts).
 */
import { fileURLToPath } from 'node:url';
import { buildEngine } from '../engine-kit/build-engine.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/netscan.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/netscan', import.meta.url));

export function buildNetscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngine({ name: 'netscan', entry: ENTRY, outfile });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildNetscan();
  process.stdout.write(`built ${outfile}\n`);
}
