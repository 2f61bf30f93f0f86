/**
 * Builds tlsscan for the Lambda layer through the kit's buildEngine: dist/bin/tlsscan (the
 * launcher the layer mounts as /opt/bin/tlsscan) and dist/lib/. Tests pass their own outfile.
 */
import { fileURLToPath } from 'node:url';
import { buildEngineOf } from '../build.ts';

export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/tlsscan', import.meta.url));

export function buildTlsscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngineOf('tlsscan', outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildTlsscan();
  process.stdout.write(`built ${outfile}\n`);
}
