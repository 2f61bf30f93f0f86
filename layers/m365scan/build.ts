/**
 * Builds m365scan for the Lambda layer through the kit's buildEngine: dist/bin/m365scan (the
 * launcher the layer mounts as /opt/bin/m365scan) and dist/lib/. Tests pass their own outfile.
 */
import { fileURLToPath } from 'node:url';
import { buildEngine } from '../engine-kit/build-engine.ts';

export const ENTRY = fileURLToPath(new URL('./src/bin/m365scan.ts', import.meta.url));
export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/m365scan', import.meta.url));

export function buildM365scan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngine({ name: 'm365scan', entry: ENTRY, outfile });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildM365scan();
  process.stdout.write(`built ${outfile}\n`);
}
