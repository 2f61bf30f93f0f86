/**
 * Builds secretscan for the Lambda layer: dist/bin/secretscan (the launcher the layer mounts as
 * /opt/bin/secretscan) and dist/lib/ (the split ES-module bundle), through the kit's buildEngine.
 */
import { fileURLToPath } from 'node:url';
import { buildEngineOf } from '../build.ts';

export const DEFAULT_OUTFILE = fileURLToPath(new URL('./dist/bin/secretscan', import.meta.url));

export function buildSecretscan(outfile: string = DEFAULT_OUTFILE): Promise<string> {
  return buildEngineOf('secretscan', outfile);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = await buildSecretscan();
  process.stdout.write(`built ${outfile}\n`);
}
