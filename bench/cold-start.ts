import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildHouseFloor, floorOf, initMs, lambdaBundles, medians, type InitSample, type LambdaBundle } from '../scripts/lambda-init.ts';

// Cold start of one build against another (docs/cold-start.md): for every function in both dev
// synths, the two bundles and their two floors are imported in turn in fresh processes, N rounds,
// so drift in the machine's load lands on all four. Separate runs of scripts/bundle-budget.ts are
// not comparable on a shared machine: its ratios moved by ±0.1 between runs.
// Usage (each directory a `cdk synth -c env=dev` output inside a checkout with node_modules):
//   npm run bench:cold-start -- <before cdk.out> [<after cdk.out>] [--runs N]

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 20;
const [beforeDir, afterDir = 'cdk.out'] = args
  .filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--runs')
  .map((dir) => resolve(dir));
if (!beforeDir) throw new Error('usage: npm run bench:cold-start -- <before cdk.out> [<after cdk.out>] [--runs N]');

interface Side {
  bundle: LambdaBundle;
  floor: string;
  dir: string;
  init: InitSample[];
  base: InitSample[];
}

const scratch = { before: mkdtempSync(join(beforeDir, '.init-floor-')), after: mkdtempSync(join(afterDir, '.init-floor-')) };
const houseFloor = { before: await buildHouseFloor(scratch.before), after: await buildHouseFloor(scratch.after) };
const afterBundles = new Map(lambdaBundles(afterDir).map((bundle) => [bundle.name, bundle]));
const rows: string[] = [];
for (const bundle of lambdaBundles(beforeDir)) {
  const after = afterBundles.get(bundle.name);
  if (!after) continue;
  const sides: Side[] = [
    { bundle, floor: floorOf(bundle, scratch.before, houseFloor.before).file, dir: beforeDir, init: [], base: [] },
    { bundle: after, floor: floorOf(after, scratch.after, houseFloor.after).file, dir: afterDir, init: [], base: [] },
  ];
  for (let i = 0; i < runs; i += 1) {
    for (const side of sides) {
      side.init.push(initMs(side.bundle.file, side.bundle.env, side.dir));
      side.base.push(initMs(side.floor, side.bundle.env, side.dir));
    }
  }
  const [b, a] = sides.map((side) => ({ init: medians(side.init), base: medians(side.base), size: side.bundle.size }));
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  rows.push(
    `| ${bundle.name} | ${kib(b.size)} → ${kib(a.size)} | ${b.init.wall.toFixed(1)} → ${a.init.wall.toFixed(1)} ms | ` +
      `${b.base.wall.toFixed(1)} / ${a.base.wall.toFixed(1)} ms | ${(b.init.wall - b.base.wall).toFixed(1)} → ${(a.init.wall - a.base.wall).toFixed(1)} ms | ` +
      `${(b.init.wall / b.base.wall).toFixed(2)} → ${(a.init.wall / a.base.wall).toFixed(2)} | ${(b.init.cpu / b.base.cpu).toFixed(2)} → ${(a.init.cpu / a.base.cpu).toFixed(2)} |`,
  );
}
rmSync(scratch.before, { recursive: true, force: true });
rmSync(scratch.after, { recursive: true, force: true });
console.log(`before: ${beforeDir}\nafter:  ${afterDir}\nmedians of ${runs} interleaved rounds; floors as in docs/cold-start.md\n`);
console.log(
  `| function | bundle | init | floor before / after | added to floor | ratio | CPU ratio |\n|---|---:|---:|---:|---:|---:|---:|\n${rows.join('\n')}`,
);
