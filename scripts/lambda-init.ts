import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { lambdaEsbuildOptions } from '../infra/bundling/lambda-bundle.ts';

// Module initialisation of the synthesized Lambda bundles, in fresh Node processes, beside a floor:
// what each function cannot shed (docs/cold-start.md). Used by scripts/bundle-budget.ts (CI) and
// bench/cold-start.ts (one build against another, interleaved).
//
// The floor of a function that uses AWS SDK clients is a module that only loads and constructs
// those clients (the runtime provides the SDK, so it is external in both). A function without one
// would be measured against an empty module; its floor is instead the smallest handler the house
// rules allow (STYLE.md): the Powertools Logger, its configuration validated with zod at cold
// start, and a middy chain around a no-op, bundled like a function.

interface LambdaResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties?: { Environment?: { Variables?: Record<string, unknown> } };
}

/** One function of a synthesized dev stack: its bundle, the environment it runs with, its SDK packages. */
export interface LambdaBundle {
  /** Logical id without CDK's hash, e.g. `SchedulesFunction`. */
  name: string;
  id: string;
  file: string;
  size: number;
  env: Record<string, string>;
  packages: string[];
}

/** Every Lambda function bundle of `outDir` (a `cdk synth` output of the dev stack). */
export function lambdaBundles(outDir: string): LambdaBundle[] {
  const template = JSON.parse(readFileSync(join(outDir, 'ScanService-dev.template.json'), 'utf8')) as {
    Resources: Record<string, LambdaResource>;
  };
  const bundles: LambdaBundle[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    const asset = resource.Type === 'AWS::Lambda::Function' ? resource.Metadata?.['aws:asset:path'] : undefined;
    if (!asset) continue;
    const file = join(outDir, asset, 'index.mjs');
    const env = Object.fromEntries(
      Object.entries(resource.Properties?.Environment?.Variables ?? {}).map(([key, value]) => [key, standIn(key, value)]),
    );
    bundles.push({
      name: id.replace(/[0-9A-F]{8}$/, ''),
      id,
      file,
      size: statSync(file).size,
      env,
      packages: sdkPackages(readFileSync(file, 'utf8')),
    });
  }
  return bundles;
}

/** Plausible stand-ins for the values CloudFormation fills in at deploy time (Refs, GetAtts). */
function standIn(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  // A resource class's variant (SCAN_QUEUE_URL_LONG, docs/resource-classes.md) is the same kind of value.
  if (/_URL(_[A-Z]+)?$/.test(name)) return 'https://sqs.eu-west-1.amazonaws.com/123456789012/stand-in';
  if (/_ARN(_[A-Z]+)?$/.test(name)) return 'arn:aws:sqs:eu-west-1:123456789012:stand-in';
  if (name === 'TABLE_NAME') return 'stand-in-table';
  return 'stand-in';
}

export interface InitSample {
  wall: number;
  cpu: number;
}

/**
 * Wall and CPU time (user + system, all threads) of `import(file)` in a fresh Node process. CPU
 * time is printed too because it barely moves when other work shares the machine; wall time does.
 * `cwd` is inside the repository: the bundles import the SDK as the runtime provides it, and here
 * it resolves from the repository's node_modules.
 */
export function initMs(file: string, env: Record<string, string>, cwd: string): InitSample {
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
    cwd,
    encoding: 'utf8',
  });
  return JSON.parse(out) as InitSample;
}

export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Medians of a series of samples. */
export function medians(samples: InitSample[]): InitSample {
  return { wall: median(samples.map((sample) => sample.wall)), cpu: median(samples.map((sample) => sample.cpu)) };
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
export async function buildHouseFloor(dir: string): Promise<string> {
  const entry = join(dir, 'house-floor-entry.mjs');
  writeFileSync(entry, HOUSE_FLOOR_SOURCE);
  const outfile = join(dir, 'house-floor.mjs');
  await build({ ...lambdaEsbuildOptions(), entryPoints: [entry], outfile });
  return outfile;
}

/** What `bundle` is measured against: its SDK floor module (written to `dir`) or the house floor. */
export function floorOf(bundle: LambdaBundle, dir: string, houseFloor: string): { file: string; kind: string } {
  if (bundle.packages.length === 0) return { file: houseFloor, kind: 'house minimum' };
  const file = join(dir, `${bundle.id}.mjs`);
  writeFileSync(file, sdkFloorModule(bundle.packages));
  return { file, kind: `SDK: ${bundle.packages.map((pkg) => pkg.replace('@aws-sdk/', '')).join(', ')}` };
}
