import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// Bundle-size budget: every Lambda bundle in the synthesized dev stack stays under the limit, so a
// stray import (an SDK barrel, a test helper) shows up in CI rather than in cold starts.
const BUDGET_BYTES = 1024 * 1024;
const outDir = process.argv[2] ?? 'cdk.out';
const template = JSON.parse(readFileSync(join(outDir, 'ScanService-dev.template.json'), 'utf8')) as {
  Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
};

let over = 0;
for (const [id, resource] of Object.entries(template.Resources)) {
  const asset = resource.Type === 'AWS::Lambda::Function' ? resource.Metadata?.['aws:asset:path'] : undefined;
  if (!asset) continue;
  const size = statSync(join(outDir, asset, 'index.mjs')).size;
  const verdict = size > BUDGET_BYTES ? 'OVER BUDGET' : 'ok';
  if (size > BUDGET_BYTES) over += 1;
  console.log(`${id.padEnd(32)} ${(size / 1024).toFixed(0).padStart(6)} KiB  ${verdict}`);
}
console.log(`budget ${BUDGET_BYTES / 1024} KiB per function bundle`);
process.exit(over > 0 ? 1 : 0);
