/**
 * Builds llmscan for the Lambda layer through the kit's buildEngine (from its manifest's entry):
 * dist/bin/llmscan (the launcher the layer mounts as /opt/bin/llmscan) and dist/lib/. Tests pass
 * their own outfile.
 */
import { fileURLToPath } from 'node:url';
import { buildEngineOf } from '../build.ts';

export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/llmscan', import.meta.url));

export function buildLlmscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngineOf('llmscan', outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildLlmscan();
  process.stdout.write(`built ${outfile}\n`);
}
