import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MANIFESTS } from '../layers/manifests.ts';
import { buildHouseFloor, floorOf, initMs, lambdaBundles, medians, type InitSample } from './lambda-init.ts';

// Bundle budget and cold start (docs/cold-start.md): every Lambda bundle in the synthesized dev
// stack stays under its size budget (a stray import shows up in CI rather than in cold starts), and
// its module initialisation, measured in fresh processes, is printed beside a floor: what the
// function cannot shed (scripts/lambda-init.ts). Init times are printed, never failed on: CI
// machines vary.
// Run after `cdk synth`: npx tsx scripts/bundle-budget.ts [cdk.out] [--runs N] (N = 20 by default).

/**
 * Size budgets in KiB by logical id (without CDK's hash), each the function's size when it was last
 * trimmed plus a little headroom, so a stray import into one function fails CI although it would
 * fit under the largest function's size. A new function gets DEFAULT_BUDGET_KIB until it is listed.
 */
const BUDGET_KIB: Record<string, number> = {
  SchedulesFunction: 496, // 474 KiB measured 2026-11-28: + eleven engines' manifests (the four of this landing, m365scan, nhiscan, vdiscan and medscan, ~8–10 KiB each: scope schemas and catalogues with DESIGN §11 metadata). Before: 435 KiB in CI: + seven engines' manifests (scope schemas, catalogues with DESIGN §11 metadata, ~68 KiB) and the vault's credential checks and KMS client
  ScansFunction: 512, // 492 KiB measured 2026-11-28: + eleven engines' manifests (the four of this landing, m365scan, nhiscan, vdiscan and medscan, ~8–10 KiB each: scope schemas and catalogues with DESIGN §11 metadata). Before: 450 KiB in CI: + seven engines' manifests (~68 KiB), the credentials routes, the SBOM route
  MetaFunction: 152, // 142 KiB measured 2026-11-28 (the sign-in code route). Before: 130 KiB: the OpenAPI document is a file beside the bundle
  ReconcileFunction: 296, // 278 KiB measured 2026-11-28: + eleven engines' manifests (the four of this landing, m365scan, nhiscan, vdiscan and medscan, ~8–10 KiB each: scope schemas and catalogues with DESIGN §11 metadata). Before: 242 KiB in CI: + seven engines' manifests through scope validation (~68 KiB)
  DispatchDispatchFunction: 360, // 340 KiB measured 2026-11-28: + eleven engines' manifests (the four of this landing, m365scan, nhiscan, vdiscan and medscan, ~8–10 KiB each: scope schemas and catalogues with DESIGN §11 metadata). Before: 302 KiB in CI: + seven engines' manifests (~68 KiB), the credential opener, output storage, coverage
  DispatchLongDispatchFunction: 360, // 340 KiB measured 2026-11-28: the same bundle as DispatchDispatchFunction. Before: 304 KiB here: the long resource class's dispatch function, the same bundle as DispatchDispatchFunction (docs/resource-classes.md)
  DispatchDeadLetterFunction: 360, // 339 KiB measured 2026-11-28: the same dispatch service. Before: 302 KiB in CI: the same dispatch service
  ArtifactsCheckFunction: 280, // 263 KiB measured 2026-11-28: + eleven engines' manifests (the four of this landing, m365scan, nhiscan, vdiscan and medscan, ~8–10 KiB each: scope schemas and catalogues with DESIGN §11 metadata). Before: 232 KiB in CI: + the manifests (artifact fields are manifest data)
  AuthorizerFunction: 128, // 115 KiB
  NotificationsNotifierFunction: 276, // 260 KiB measured 2026-11-28: + eleven engines' manifests (the four of this landing, m365scan, nhiscan, vdiscan and medscan, ~8–10 KiB each: scope schemas and catalogues with DESIGN §11 metadata). Before: 224 KiB in CI: + the manifests' catalogues (~68 KiB) and digests. Follow-up: a rule-id and scope registry written at build time, as the engine views already are, would take the catalogues out of every function
  SessionKeyRotationFunction: 32, // 26 KiB
};
const DEFAULT_BUDGET_KIB = 384;

/**
 * The engines' bundles in the dispatch layer (layers/dist/lib/<engine>/, DESIGN §11): each
 * manifest's `bundleBudgetKiB`, its size when it was last measured plus headroom, so an engine that
 * pulls in a large dependency by accident fails CI.
 */
const DEFAULT_ENGINE_BUDGET_KIB = 4096;
/**
 * The start-up snapshots' scripts the layer ships beside the bundles (layers/dist/snapshots/*.cjs,
 * docs/mailscan-startup.md): the runner makes a blob from one with the runtime's node. Their blobs
 * stay out of the layer (infra/constructs/dispatch.ts) and are not counted.
 */
const SNAPSHOT_SCRIPT_BUDGET_KIB: Record<string, number> = {
  'mailscan-snapshot.cjs': 448, // 372 KiB: the scan's modules without the opt-in surfaces and X.509 (the bundle's on-demand.js)
};
const INIT_RATIO_LIMIT = 1.5;
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
// 20 by default: on a shared 2-core machine a median of 10 moved a ratio by ±0.1 between runs.
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 20;
const outDir = resolve(args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--runs') ?? 'cdk.out');

const scratch = mkdtempSync(join(outDir, '.init-floor-'));
const houseFloor = await buildHouseFloor(scratch);
let over = 0;
const rows: string[] = [];
for (const bundle of lambdaBundles(outDir)) {
  const budget = (BUDGET_KIB[bundle.name] ?? DEFAULT_BUDGET_KIB) * 1024;
  if (bundle.size > budget) over += 1;
  const floor = floorOf(bundle, scratch, houseFloor);
  // Interleaved, so a burst of load on a shared machine lands on both sides of the ratio.
  const initSamples: InitSample[] = [];
  const floorSamples: InitSample[] = [];
  for (let i = 0; i < runs; i += 1) {
    initSamples.push(initMs(bundle.file, bundle.env, outDir));
    floorSamples.push(initMs(floor.file, bundle.env, outDir));
  }
  const init = medians(initSamples);
  const base = medians(floorSamples);
  const ratio = init.wall / base.wall;
  rows.push(
    `| ${bundle.name} | ${(bundle.size / 1024).toFixed(0)} KiB | ${(budget / 1024).toFixed(0)} KiB${bundle.size > budget ? ' OVER' : ''} | ` +
      `${init.wall.toFixed(1)} ms | ${base.wall.toFixed(1)} ms | ${(init.wall - base.wall).toFixed(1)} ms | ${floor.kind} | ` +
      `${ratio.toFixed(2)}${ratio > INIT_RATIO_LIMIT ? ` (over ${INIT_RATIO_LIMIT})` : ''} | ${(init.cpu / base.cpu).toFixed(2)} |`,
  );
}
rmSync(scratch, { recursive: true, force: true });

// The engines: run after `npm run build` (layers/dist), as CI does before `cdk synth`.
const layerLib = resolve('layers/dist/lib');
const engineRows: string[] = [];
for (const engine of MANIFESTS) {
  const dir = join(layerLib, engine.name);
  if (!existsSync(dir)) {
    over += 1;
    engineRows.push(`| ${engine.name} | not built | | run \`npm run build\` first |`);
    continue;
  }
  const size = readdirSync(dir)
    .filter((file) => file.endsWith('.js'))
    .reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
  const budget = engine.bundleBudgetKiB * 1024;
  if (size > budget) over += 1;
  engineRows.push(
    `| ${engine.name} | ${(size / 1024).toFixed(0)} KiB | ${(budget / 1024).toFixed(0)} KiB${size > budget ? ' OVER' : ''} |`,
  );
}
const snapshots = resolve('layers/dist/snapshots');
for (const script of existsSync(snapshots) ? readdirSync(snapshots).filter((file) => file.endsWith('.cjs')) : []) {
  const size = statSync(join(snapshots, script)).size;
  const budget = (SNAPSHOT_SCRIPT_BUDGET_KIB[script] ?? DEFAULT_ENGINE_BUDGET_KIB) * 1024;
  if (size > budget) over += 1;
  engineRows.push(
    `| snapshots/${script} | ${(size / 1024).toFixed(0)} KiB | ${(budget / 1024).toFixed(0)} KiB${size > budget ? ' OVER' : ''} |`,
  );
}
console.log(`| engine (layers/dist/lib, snapshots) | bundle | budget |\n|---|---:|---:|\n${engineRows.join('\n')}`);
console.log(
  `| function | bundle | budget | init (median of ${runs}) | floor | added | floor is | ratio | CPU ratio |\n|---|---:|---:|---:|---:|---:|---|---:|---:|\n${rows.join('\n')}`,
);
console.log(
  `floor: the SDK clients the function uses, loaded and constructed; for a function without one, the house minimum ` +
    `(Powertools Logger + zod-validated configuration + middy chain, bundled like a function). See docs/cold-start.md.`,
);
console.log(`size budget per function and engine as listed (fails CI); init target ≤ ${INIT_RATIO_LIMIT} × floor (printed, not enforced)`);
process.exit(over > 0 ? 1 : 0);
