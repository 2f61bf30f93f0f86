import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildEngineOf } from '../layers/build.ts';
import { startOsvServer } from '../layers/sbomscan/test/osv-server.ts';
import { referenceTool } from '../scripts/reference-tools.ts';
import { gitAvailable, startGitServer } from '../test/helpers/git-http-server.ts';
import { formatSpread, interleaved, pairedRatios } from './paired.ts';

// npm run bench:sbom [-- --runs 5]
//
// sbomscan (the built executable: the depth-1 clone from git http-backend on loopback, the
// lockfiles read, the CycloneDX document built, every package looked up in a loopback OSV service)
// against cdxgen (`-t js -t python -t rust --no-install-deps`) on a checkout of the same commit, over
// a generated repository of 5,000 packages in npm (package-lock v3), pnpm (v9), Cargo and Python
// (pinned requirements) lockfiles. Equal concurrency: each side's process on core 0 (`taskset -c 0`)
// while the Git and OSV servers run in this process; the clone and the OSV lookups are counted on
// our side, nothing extra on cdxgen's. Runs are interleaved (A B A B); peak RSS from GNU time.
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const TIME = '/usr/bin/time';
const pin = availableParallelism() >= 2 && existsSync('/usr/bin/taskset') ? ['/usr/bin/taskset', '-c', '0'] : [];

function files(): Record<string, string> {
  const out: Record<string, string> = {};
  const npm: Record<string, unknown> = { '': { name: 'bench', dependencies: {} as Record<string, string> } };
  for (let i = 0; i < 2000; i++) {
    const name = `bench-npm-${i}`;
    if (i < 200) (npm[''] as { dependencies: Record<string, string> }).dependencies[name] = `1.0.${i % 10}`;
    // Each package depends on the one 200 further on, so all 2,000 are reached from the 200 direct ones (npm and cdxgen drop orphans).
    const next = i + 200 < 2000 ? { dependencies: { [`bench-npm-${i + 200}`]: `1.0.${(i + 200) % 10}` } } : {};
    npm[`node_modules/${name}`] = {
      version: `1.0.${i % 10}`,
      resolved: `https://registry.npmjs.org/${name}/-/${name}-1.0.${i % 10}.tgz`,
      integrity: `sha512-${createHash('sha512').update(name).digest('base64')}`,
      license: 'MIT',
      ...next,
    };
  }
  out['web/package.json'] = JSON.stringify({
    name: 'bench',
    version: '1.0.0',
    dependencies: (npm[''] as { dependencies: object }).dependencies,
  });
  out['web/package-lock.json'] = JSON.stringify(
    { name: 'bench', version: '1.0.0', lockfileVersion: 3, requires: true, packages: npm },
    null,
    2,
  );
  const pnpmImporter = Array.from(
    { length: 150 },
    (_, i) => `      bench-pnpm-${i}:\n        specifier: 2.0.${i % 10}\n        version: 2.0.${i % 10}`,
  ).join('\n');
  const pnpmPackages = Array.from(
    { length: 1500 },
    (_, i) =>
      `  bench-pnpm-${i}@2.0.${i % 10}:\n    resolution: {integrity: sha512-${createHash('sha512').update(`p${i}`).digest('base64')}}`,
  ).join('\n\n');
  // Each package depends on the one 150 further on, so all 1,500 are reached from the 150 direct ones.
  const pnpmSnapshots = Array.from({ length: 1500 }, (_, i) =>
    i + 150 < 1500
      ? `  bench-pnpm-${i}@2.0.${i % 10}:\n    dependencies:\n      bench-pnpm-${i + 150}: 2.0.${(i + 150) % 10}`
      : `  bench-pnpm-${i}@2.0.${i % 10}: {}`,
  ).join('\n\n');
  out['app/package.json'] = JSON.stringify({
    name: 'app',
    version: '1.0.0',
    dependencies: Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`bench-pnpm-${i}`, `2.0.${i % 10}`])),
  });
  out['app/pnpm-lock.yaml'] =
    `lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .:\n    dependencies:\n${pnpmImporter}\n\npackages:\n\n${pnpmPackages}\n\nsnapshots:\n\n${pnpmSnapshots}\n`;
  const crates = Array.from(
    { length: 1000 },
    (_, i) =>
      `[[package]]\nname = "bench-crate-${i}"\nversion = "0.${i % 10}.0"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${i.toString(16).padStart(64, '0')}"\n`,
  ).join('\n');
  out['rust/Cargo.toml'] = '[package]\nname = "bench"\nversion = "0.1.0"\n\n[dependencies]\nbench-crate-0 = "0.0"\n';
  out['rust/Cargo.lock'] = `version = 3\n\n[[package]]\nname = "bench"\nversion = "0.1.0"\n\n${crates}`;
  out['py/requirements.txt'] = Array.from({ length: 500 }, (_, i) => `bench-py-${i}==3.${i % 10}.0`).join('\n') + '\n';
  return out;
}

async function timed(argv: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<{ ms: number; rssMb: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(TIME, ['-f', 'peak_rss_kb=%M', ...pin, ...argv], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const rss = /peak_rss_kb=(\d+)/.exec(stderr);
      if (code !== 0 || !rss) return reject(new Error(`${argv[0]} exited ${code}: ${stderr.slice(-500)}`));
      resolve({ ms, rssMb: Number(rss[1]) / 1024 });
    });
  });
}

if (!gitAvailable()) throw new Error('git and git http-backend are needed (apt-get install git)');
const [git, osv] = await Promise.all([startGitServer(), startOsvServer()]);
const work = await mkdtemp(join(tmpdir(), 'bench-sbom-'));
try {
  const repo = await git.repository('bench/app');
  await repo.commit('5,000 packages', files());
  const checkout = join(work, 'checkout');
  await mkdir(checkout);
  await new Promise<void>((resolve, reject) =>
    spawn('git', ['clone', '--quiet', '--depth', '1', `${git.origin}/bench/app.git`, checkout], { stdio: 'ignore' }).on('close', (code) =>
      code === 0 ? resolve() : reject(new Error('git clone failed')),
    ),
  );
  await writeFile(join(work, 'scope.json'), '{}');
  const bin = await buildEngineOf('sbomscan', join(work, 'bin', 'sbomscan'));
  const oursEnv = { ...process.env, SBOMSCAN_ALLOW_LOOPBACK: '1', SBOMSCAN_OSV_URL: osv.url, SBOMSCAN_TMPDIR: work };
  const cdxEnv = {
    ...process.env,
    FETCH_LICENSE: 'false',
    CDXGEN_NO_BANNER: 'true',
    DO_NOT_TRACK: '1',
    CDXGEN_TEMP_DIR: work,
    MVN_CMD: '/bin/false',
  };
  const cdxgen = referenceTool('cdxgen');
  if (!cdxgen) throw new Error('cdxgen is not installed: npm run reference-tools');
  // Equal work: both sides list the same 5,000 purls (checked once, outside the timed runs).
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { readFile } = await import('node:fs/promises');
  const run = promisify(execFile);
  const ourReport = JSON.parse(
    (
      await run(bin, ['scan', `${git.origin}/bench/app.git`, '--scope-json', join(work, 'scope.json')], {
        env: oursEnv,
        maxBuffer: 1 << 28,
      })
    ).stdout,
  ) as { outputs: { sbom: { components: Array<{ purl: string }> } } };
  await run(cdxgen, ['-t', 'js', '-t', 'python', '-t', 'rust', '--no-install-deps', '-o', join(work, 'cdxgen.json'), checkout], {
    env: cdxEnv,
    cwd: checkout,
    maxBuffer: 1 << 28,
  });
  const theirPurls = new Set(
    (JSON.parse(await readFile(join(work, 'cdxgen.json'), 'utf8')) as { components: Array<{ purl: string }> }).components.map((c) =>
      c.purl.replace(/\?.*$/, ''),
    ),
  );
  const ourPurls = new Set(ourReport.outputs.sbom.components.map((c) => c.purl));
  theirPurls.delete('pkg:cargo/bench@0.1.0');
  const differ = [...ourPurls].filter((p) => !theirPurls.has(p)).length + [...theirPurls].filter((p) => !ourPurls.has(p)).length;
  if (differ > 0)
    process.stderr.write(
      `only ours: ${[...ourPurls]
        .filter((p) => !theirPurls.has(p))
        .slice(0, 5)
        .join(' ')}\nonly theirs: ${[...theirPurls]
        .filter((p) => !ourPurls.has(p))
        .slice(0, 5)
        .join(' ')}\n`,
    );
  if (differ > 0)
    throw new Error(
      `the two sides list different packages (${ourPurls.size} against ${theirPurls.size}, ${differ} differ): not equal work`,
    );
  process.stdout.write(
    `bench:sbom — 5,000 packages (npm 2,000, pnpm 1,500, Cargo 1,000, Python 500; both list the same ${ourPurls.size} purls), ${RUNS} interleaved pairs, ${pin.length ? 'each side on core 0' : 'unpinned (no taskset or one core)'}; load ${loadavg()[0].toFixed(2)}\n`,
  );
  const samples = await interleaved(
    {
      sbomscan: () => timed([bin, 'scan', `${git.origin}/bench/app.git`, '--scope-json', join(work, 'scope.json')], oursEnv),
      cdxgen: () =>
        timed(
          [cdxgen, '-t', 'js', '-t', 'python', '-t', 'rust', '--no-install-deps', '-o', join(work, 'cdxgen.json'), checkout],
          cdxEnv,
          checkout,
        ),
    },
    RUNS,
  );
  const ours = samples.sbomscan;
  const theirs = samples.cdxgen;
  process.stdout.write(
    `sbomscan wall  ${formatSpread(
      ours.map((s) => s.ms),
      ' ms',
    )}   peak RSS ${formatSpread(
      ours.map((s) => s.rssMb),
      ' MB',
    )}\n`,
  );
  process.stdout.write(
    `cdxgen   wall  ${formatSpread(
      theirs.map((s) => s.ms),
      ' ms',
    )}   peak RSS ${formatSpread(
      theirs.map((s) => s.rssMb),
      ' MB',
    )}\n`,
  );
  process.stdout.write(
    `paired speed-up cdxgen/sbomscan: ${formatSpread(
      pairedRatios(
        theirs.map((s) => s.ms),
        ours.map((s) => s.ms),
      ),
      '×',
      2,
    )} (min/median/max: median first)\n`,
  );
  process.stdout.write(`load at the end ${loadavg()[0].toFixed(2)}\n`);
} finally {
  await Promise.all([git.close(), osv.close()]);
  await rm(work, { recursive: true, force: true });
}
