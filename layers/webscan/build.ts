/**
 * Builds webscan for the Lambda layer through the kit's buildEngine: dist/bin/webscan (the
 * launcher the layer mounts as /opt/bin/webscan) and dist/lib/. Tests pass their own outfile.
 */
import { fileURLToPath } from 'node:url';
import { buildEngine } from '../engine-kit/build-engine.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/webscan.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/webscan', import.meta.url));

export function buildWebscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngine({ name: 'webscan', entry: ENTRY, outfile });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildWebscan();
  process.stdout.write(`built ${outfile}\n`);
}
