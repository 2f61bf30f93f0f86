import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// Bundle budget and cold start: every Lambda bundle in the synthesized dev stack stays under the
// size limit (a stray import shows up in CI rather than in cold starts), and its module
// initialisation, measured in fresh processes, stays within INIT_RATIO_LIMIT of a floor bundle
// that only loads and constructs the AWS SDK clients the function imports (the runtime provides
// the SDK, so it is external in both). Init times are printed, never failed on: CI machines vary.
// Run after `cdk synth`: npx tsx scripts/bundle-budget.ts [cdk.out] [--runs N].
// The largest bundle was 298 KiB when this was set (from 461–643 KiB before zod was imported as a
// namespace, which lets esbuild drop its unused locales and checks).
const BUDGET_BYTES = 384 * 1024;
const INIT_RATIO_LIMIT = 1.5;
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 10;
const outDir = resolve(args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--runs') ?? 'cdk.out');

interface LambdaResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } };
}
const template = JSON.parse(readFileSync(join(outDir, 'ScanService-dev.template.json'), 'utf8')) as { Resources: Record<string, LambdaResource> };

/** Plausible stand-ins for the values CloudFormation fills in at deploy time (Refs, GetAtts). */
function standIn(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (name.endsWith('_URL')) return 'https://sqs.eu-west-1.amazonaws.com/123456789012/stand-in';
  if (name.endsWith('_ARN')) return 'arn:aws:sqs:eu-west-1:123456789012:stand-in';
  if (name === 'TABLE_NAME') return 'stand-in-table';
  return 'stand-in';
}

/** Median wall time of `import(file)` in a fresh Node process, `runs` times. */
function initMs(file: string, env: Record<string, string>): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'stand-in', AWS_SECRET_ACCESS_KEY: 'stand-in', ...env },
      // The bundles import the SDK as the runtime provides it; here it resolves from the repository.
      cwd: outDir,
      encoding: 'utf8',
    });
    samples.push(Number(out));
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/** A module that only loads and constructs the SDK clients `bundle` imports. */
function floorModule(bundle: string): string {
  const packages = [...new Set([...bundle.matchAll(/from\s*"(@aws-sdk\/[a-z0-9-]+)"/g)].map((match) => match[1]))].sort();
  const lines = packages.map((pkg, i) => `import * as sdk${i} from '${pkg}';`);
  for (const [i] of packages.entries()) {
    lines.push(`for (const [name, value] of Object.entries(sdk${i})) if (name.endsWith('Client') && typeof value === 'function' && name !== 'DynamoDBDocumentClient') new value({});`);
  }
  return `${lines.join('\n')}\n`;
}

const scratch = mkdtempSync(join(outDir, '.init-floor-'));
let over = 0;
const rows: string[] = [];
for (const [id, resource] of Object.entries(template.Resources)) {
  const asset = resource.Type === 'AWS::Lambda::Function' ? resource.Metadata?.['aws:asset:path'] : undefined;
  if (!asset) continue;
  const file = join(outDir, asset, 'index.mjs');
  const size = statSync(file).size;
  if (size > BUDGET_BYTES) over += 1;
  const env = Object.fromEntries(Object.entries(resource.Properties?.Environment?.Variables ?? {}).map(([name, value]) => [name, standIn(name, value)]));
  const floorFile = join(scratch, `${id}.mjs`);
  writeFileSync(floorFile, floorModule(readFileSync(file, 'utf8')));
  const init = initMs(file, env);
  const floor = initMs(floorFile, env);
  const ratio = init / floor;
  rows.push(
    `| ${id} | ${(size / 1024).toFixed(0)} KiB${size > BUDGET_BYTES ? ' OVER BUDGET' : ''} | ${init.toFixed(1)} ms | ${floor.toFixed(1)} ms | ${ratio.toFixed(2)}${ratio > INIT_RATIO_LIMIT ? ' (over ' + INIT_RATIO_LIMIT + ')' : ''} |`,
  );
}
rmSync(scratch, { recursive: true, force: true });
console.log(`| function | bundle | init (median of ${runs}) | SDK-only floor | ratio |\n|---|---:|---:|---:|---:|\n${rows.join('\n')}`);
console.log(`budget ${BUDGET_BYTES / 1024} KiB per function bundle; init target ≤ ${INIT_RATIO_LIMIT} × floor (printed, not enforced)`);
process.exit(over > 0 ? 1 : 0);
