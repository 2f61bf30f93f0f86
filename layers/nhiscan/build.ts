/**
 * Builds nhiscan for the Lambda layer through the kit's buildEngine (from its manifest's entry):
 * dist/bin/nhiscan (the launcher the layer mounts as /opt/bin/nhiscan) and dist/lib/. Tests pass
 * their own outfile.
 */
import { fileURLToPath } from 'node:url';
import { buildEngineOf } from '../build.ts';

export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/nhiscan', import.meta.url));

export function buildNhiscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngineOf('nhiscan', outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildNhiscan();
  process.stdout.write(`built ${outfile}\n`);
}
