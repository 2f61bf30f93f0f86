import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

// Bundle budget and cold start (docs/cold-start.md): every Lambda bundle in the synthesized dev
// stack stays under its size budget (a stray import shows up in CI rather than in cold starts), and
// its module initialisation, measured in fresh processes, is printed beside a floor: what the
// function cannot shed. Init times are printed, never failed on: CI machines vary.
// Run after `cdk synth`: npx tsx scripts/bundle-budget.ts [cdk.out] [--runs N] (N = 20 by default).
//
// The floor of a function that uses AWS SDK clients is a module that only loads and constructs
// those clients (the runtime provides the SDK, so it is external in both). A function without one
// would be measured against an empty module; its floor is instead the smallest handler the house
// rules allow (STYLE.md): the Powertools Logger, its configuration validated with zod at cold
// start, and a middy chain around a no-op, bundled like a function.

/**
 * Size budgets in KiB by logical id (without CDK's hash), each the function's size when it was last
 * trimmed plus a little headroom, so a stray import into one function fails CI although it would
 * fit under the largest function's size. A new function gets DEFAULT_BUDGET_KIB until it is listed.
 */
const BUDGET_KIB: Record<string, number> = {
  SchedulesFunction: 352, // 326 KiB
  ScansFunction: 368, // 344 KiB
  MetaFunction: 144, // 130 KiB: the OpenAPI document is a file beside the bundle
  ReconcileFunction: 168, // 150 KiB
  DispatchDispatchFunction: 200, // 183 KiB
  DispatchDeadLetterFunction: 200, // 182 KiB
  ArtifactsCheckFunction: 176, // 164 KiB
  AuthorizerFunction: 128, // 115 KiB
  SessionKeyRotationFunction: 32, // 26 KiB
};
const DEFAULT_BUDGET_KIB = 384;
const INIT_RATIO_LIMIT = 1.5;
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
// 20 by default: on a shared 2-core machine a median of 10 moved a ratio by ±0.1 between runs.
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 20;
const outDir = resolve(args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--runs') ?? 'cdk.out');

interface LambdaResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } };
}
const template = JSON.parse(readFileSync(join(outDir, 'ScanService-dev.template.json'), 'utf8')) as {
  Resources: Record<string, LambdaResource>;
};

/** Plausible stand-ins for the values CloudFormation fills in at deploy time (Refs, GetAtts). */
function standIn(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (name.endsWith('_URL')) return 'https://sqs.eu-west-1.amazonaws.com/123456789012/stand-in';
  if (name.endsWith('_ARN')) return 'arn:aws:sqs:eu-west-1:123456789012:stand-in';
  if (name === 'TABLE_NAME') return 'stand-in-table';
  return 'stand-in';
}

/**
 * Wall and CPU time (user + system, all threads) of `import(file)` in a fresh Node process. CPU
 * time is printed too because it barely moves when other work shares the machine; wall time does.
 */
function initMs(file: string, env: Record<string, string>): { wall: number; cpu: number } {
  const script =
    `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); ` +
    `const wall = performance.now() - t; const { user, system } = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wall, cpu: (user + system) / 1000 }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'stand-in',
      AWS_SECRET_ACCESS_KEY: 'stand-in',
      ...env,
    },
    // The bundles import the SDK as the runtime provides it; here it resolves from the repository.
    cwd: outDir,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { wall: number; cpu: number };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The SDK packages a bundle imports (external, so they appear as bare imports). */
function sdkPackages(bundle: string): string[] {
  return [...new Set([...bundle.matchAll(/from\s*"(@aws-sdk\/[a-z0-9-]+)"/g)].map((match) => match[1]))].sort();
}

/** A module that only loads and constructs the SDK clients of `packages`. */
function sdkFloorModule(packages: string[]): string {
  const lines = packages.map((pkg, i) => `import * as sdk${i} from '${pkg}';`);
  for (const [i] of packages.entries()) {
    lines.push(
      `for (const [name, value] of Object.entries(sdk${i})) if (name.endsWith('Client') && typeof value === 'function' && name !== 'DynamoDBDocumentClient') new value({});`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The smallest handler STYLE.md allows: logger, configuration validated at cold start, middy chain. */
const HOUSE_FLOOR_SOURCE = `import { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import * as z from 'zod';
const config = z.object({ LOG_LEVEL: z.string().default('INFO') }).parse(process.env);
const logger = new Logger({ serviceName: 'floor', logLevel: config.LOG_LEVEL });
export const handler = middy().handler(async () => { logger.info('invoked'); });
`;

/** Bundled as ServiceFunction bundles a function (infra/constructs/service-function.ts). */
async function buildHouseFloor(dir: string): Promise<string> {
  const entry = join(dir, 'house-floor-entry.mjs');
  writeFileSync(entry, HOUSE_FLOOR_SOURCE);
  const outfile = join(dir, 'house-floor.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    external: ['@aws-sdk/*'],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'error',
  });
  return outfile;
}

const scratch = mkdtempSync(join(outDir, '.init-floor-'));
const houseFloor = await buildHouseFloor(scratch);
let over = 0;
const rows: string[] = [];
for (const [id, resource] of Object.entries(template.Resources)) {
  const asset = resource.Type === 'AWS::Lambda::Function' ? resource.Metadata?.['aws:asset:path'] : undefined;
  if (!asset) continue;
  const name = id.replace(/[0-9A-F]{8}$/, '');
  const file = join(outDir, asset, 'index.mjs');
  const size = statSync(file).size;
  const budget = (BUDGET_KIB[name] ?? DEFAULT_BUDGET_KIB) * 1024;
  if (size > budget) over += 1;
  const env = Object.fromEntries(
    Object.entries(resource.Properties?.Environment?.Variables ?? {}).map(([key, value]) => [key, standIn(key, value)]),
  );
  const packages = sdkPackages(readFileSync(file, 'utf8'));
  let floorFile = houseFloor;
  if (packages.length > 0) {
    floorFile = join(scratch, `${id}.mjs`);
    writeFileSync(floorFile, sdkFloorModule(packages));
  }
  // Interleaved, so a burst of load on a shared machine lands on both sides of the ratio.
  const initSamples: { wall: number; cpu: number }[] = [];
  const floorSamples: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < runs; i += 1) {
    initSamples.push(initMs(file, env));
    floorSamples.push(initMs(floorFile, env));
  }
  const init = median(initSamples.map((sample) => sample.wall));
  const floor = median(floorSamples.map((sample) => sample.wall));
  const ratio = init / floor;
  const cpuRatio = median(initSamples.map((sample) => sample.cpu)) / median(floorSamples.map((sample) => sample.cpu));
  const floorKind = packages.length > 0 ? `SDK: ${packages.map((pkg) => pkg.replace('@aws-sdk/', '')).join(', ')}` : 'house minimum';
  rows.push(
    `| ${name} | ${(size / 1024).toFixed(0)} KiB | ${(budget / 1024).toFixed(0)} KiB${size > budget ? ' OVER' : ''} | ${init.toFixed(1)} ms | ${floor.toFixed(1)} ms | ${(init - floor).toFixed(1)} ms | ${floorKind} | ${ratio.toFixed(2)}${ratio > INIT_RATIO_LIMIT ? ` (over ${INIT_RATIO_LIMIT})` : ''} | ${cpuRatio.toFixed(2)} |`,
  );
}
rmSync(scratch, { recursive: true, force: true });
console.log(
  `| function | bundle | budget | init (median of ${runs}) | floor | added | floor is | ratio | CPU ratio |\n|---|---:|---:|---:|---:|---:|---|---:|---:|\n${rows.join('\n')}`,
);
console.log(
  `floor: the SDK clients the function uses, loaded and constructed; for a function without one, the house minimum ` +
    `(Powertools Logger + zod-validated configuration + middy chain, bundled like a function). See docs/cold-start.md.`,
);
console.log(`size budget per function as listed (fails CI); init target ≤ ${INIT_RATIO_LIMIT} × floor (printed, not enforced)`);
process.exit(over > 0 ? 1 : 0);
