/**
 * Builds llmscan for the Lambda layer through the kit's buildEngine: dist/bin/llmscan (the
 * launcher the layer mounts as /opt/bin/llmscan) and dist/lib/. Tests pass their own outfile.
 */
import { fileURLToPath } from 'node:url';
import { buildEngine } from '../engine-kit/build-engine.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/llmscan.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/llmscan', import.meta.url));

export function buildLlmscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngine({ name: 'llmscan', entry: ENTRY, outfile });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildLlmscan();
  process.stdout.write(`built ${outfile}\n`);
}
