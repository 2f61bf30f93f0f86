/**
 * Builds sbomscan for the Lambda layer through the kit's buildEngine: dist/bin/sbomscan. Tests pass
 * their own outfile.
 */
import { fileURLToPath } from 'node:url';
import { buildEngine } from '../engine-kit/build-engine.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/sbomscan.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/sbomscan', import.meta.url));

export function buildSbomscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngine({ name: 'sbomscan', entry: ENTRY, outfile });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildSbomscan();
  process.stdout.write(`built ${outfile}\n`);
}
