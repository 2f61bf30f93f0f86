import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildEngineOf } from '../layers/build.ts';
import { gitAvailable, startGitServer } from '../test/helpers/git-http-server.ts';
import { pairedRatios, spread } from './paired.ts';
import { benchRepository } from './secretscan-repo.ts';

// npm run bench:secrets [-- --commits 10000 --mb 200 --runs 3 --deadline 20]
//
// secretscan (the built executable: clone over smart HTTP from git http-backend on loopback, walk,
// read each distinct blob once, run the rules) against the floor `git log -p | <the same rules>`
// (bench/secretscan-floor.ts: detectSecrets over the patch stream of a local bare repository),
// over the same generated history, in two forms: with detectSecrets' keyword prefilter, as ours
// runs it (the same implementation on both sides: the ratio that compares equal work), and without
// it (`--no-prefilter`: the library as shipped, secretlint's whole preset on every text), for
// reference. Runs are interleaved (the order rotates each run); each side's peak RSS comes from
// GNU time. The repository is cached under the OS temporary folder; `--repository DIR` scans a
// bare repository of your own instead (its branch main), e.g. a clone of this one. Two paired ratios: commits per second (both sides cover every commit of the
// branch: the same work as the user sees it) and MB/s of text run through the rules (ours reads
// every distinct blob whole, the floor only the patches: the rate at which each pipeline feeds the
// same rules). The machine's load average is printed at the start and the end.
//
// Each run measures every side twice (the order of the two and of the sides rotating):
// - at equal concurrency, the headline: each side's own work on one and the same core (`taskset -c
//   0`: our scan process; the floor's whole pipeline, git log and node together), as a 1024 MB
//   Lambda gives either about 0.58 of one vCPU. The loopback Git server (this bench process and the
//   git http-backend it spawns: the floor has no counterpart of it, and it is not our work) is
//   pinned to core 1 meanwhile, so it does not take core 0 from ours;
// - unpinned, as before: the floor's two processes then run side by side on the machine's two cores
//   where our scan is one thread, and the Git server shares the cores with ours.
// Without taskset (or with fewer than 2 cores) only the unpinned figures are printed, and said so.
const { values } = parseArgs({
  options: {
    commits: { type: 'string', default: '10000' },
    mb: { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
    // After the pairs, one scan of ours with this --timeout (seconds): what a scan past its time does.
    deadline: { type: 'string' },
    // A bare repository (DIR ending in .git, branch main) to scan instead of the generated one.
    repository: { type: 'string' },
  },
});
const COMMITS = Number(values.commits);
const MEGABYTES = Number(values.mb);
const RUNS = Number(values.runs);
const TIME = '/usr/bin/time';

if (!gitAvailable()) {
  process.stdout.write('bench:secrets skipped: git and git-http-backend are needed\n');
  process.exit(0);
}

interface Measured {
  ms: number;
  /** CPU seconds (user + system) of the measured process tree: ours without the Git server's. */
  cpuS: number;
  bytes: number;
  commits: number;
  peakRssMb: number;
  extra: Record<string, number>;
}

/** The core each side's own work runs on at equal concurrency; the Git server gets the other. */
const WORK_CORE = '0';
const SERVER_CORE = '1';

/** Why the equal-concurrency runs cannot be made here, or undefined when they can. */
function pinningUnavailable(): string | undefined {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'taskset is missing (Debian util-linux)';
  }
  if (availableParallelism() < 2) return `this process may use ${availableParallelism()} core(s), not 2`;
  return undefined;
}

/** The CPUs this process (every thread of it, and so what it spawns next) may run on: `0,1`, `1`. */
function affinity(): string {
  return /:\s*(\S+)\s*$/.exec(execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' }))![1];
}

function setAffinity(cpus: string): void {
  execFileSync('taskset', ['-a', '-c', '-p', cpus, String(process.pid)], { stdio: 'ignore' });
}

/** `command` under GNU time (peak RSS, CPU); with `pin`, on WORK_CORE only (taskset execs it: time measures it). */
function runTimed(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  pin = false,
): Promise<{ stdout: string; stderr: string; ms: number }> {
  const argv = pin ? ['taskset', '-c', WORK_CORE, command, ...args] : [command, ...args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(TIME, ['-f', 'peak_rss_kb=%M cpu_s=%U+%S', ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`${command} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ stdout, stderr, ms });
    });
  });
}

/** User + system CPU seconds of the process and its children (GNU time). */
function cpuSeconds(stderr: string): number {
  const match = /cpu_s=([\d.]+)\+([\d.]+)/.exec(stderr);
  return match ? Number(match[1]) + Number(match[2]) : Number.NaN;
}

function peakRssMb(stderr: string): number {
  const match = /peak_rss_kb=(\d+)/.exec(stderr);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

function progressEvents(stderr: string): Record<string, Record<string, unknown>> {
  const events: Record<string, Record<string, unknown>> = {};
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { event: string };
    events[event.event] = event;
  }
  return events;
}

const work = await mkdtemp(join(tmpdir(), 'secretscan-bench-'));
const generating = performance.now();
const own = values.repository === undefined ? undefined : resolve(values.repository);
const repository = own === undefined ? await benchRepository(tmpdir(), COMMITS, MEGABYTES) : { root: dirname(own), commits: COMMITS };
const repositoryName = own === undefined ? 'bench.git' : basename(own);
const generatedMs = performance.now() - generating;
const server = await startGitServer({ root: repository.root });
const binary = await buildEngineOf('secretscan', join(work, 'dist', 'bin', 'secretscan'));
const scopeFile = join(work, 'scope.json');
await writeFile(scopeFile, JSON.stringify({ max_commits: COMMITS }));
const floorScript = fileURLToPath(new URL('./secretscan-floor.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const gitdir = join(repository.root, repositoryName);

async function ours(pin: boolean): Promise<Measured> {
  const env = { ...process.env, SECRETSCAN_ALLOW_LOOPBACK: '1', SECRETSCAN_MAX_PACK_MB: '4096', SECRETSCAN_TMPDIR: work };
  const run = await runTimed(
    process.execPath,
    [binary, 'scan', `${server.origin}/${repositoryName}`, '--scope-json', scopeFile, '--timeout', '3600'],
    env,
    pin,
  );
  const report = JSON.parse(run.stdout) as { status: string; findings: unknown[] };
  if (report.status !== 'ok') throw new Error(`secretscan: ${run.stdout.slice(0, 2000)}`);
  const events = progressEvents(run.stderr);
  return {
    ms: run.ms,
    cpuS: cpuSeconds(run.stderr),
    bytes: Number(events['files scanned'].bytes),
    commits: Number(events['history walked'].commits),
    peakRssMb: peakRssMb(run.stderr),
    extra: {
      clone_ms: Number(events['clone finished'].ms),
      walk_ms: Date.parse(String(events['history walked'].time)) - Date.parse(String(events['clone finished'].time)),
      scan_ms: Date.parse(String(events['files scanned'].time)) - Date.parse(String(events['history walked'].time)),
      pack_mb: Number(events['clone finished'].bytes) / 1e6,
      files: Number(events['history walked'].files),
      findings: report.findings.length,
    },
  };
}

async function floor(prefilter: boolean, pin: boolean): Promise<Measured> {
  const pipeline = `git -C '${gitdir}' log -p --no-color --format='commit %H' main | '${tsx}' '${floorScript}'${prefilter ? '' : ' --no-prefilter'}`;
  // Pinned, the shell and so both processes of the pipeline (and tsx's node child) share WORK_CORE.
  const run = await runTimed('sh', ['-c', pipeline], process.env, pin);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { commits: number; bytes: number; matches: number };
  return {
    ms: run.ms,
    cpuS: cpuSeconds(run.stderr),
    bytes: result.bytes,
    commits: result.commits,
    peakRssMb: peakRssMb(run.stderr),
    extra: { matches: result.matches },
  };
}

/** One scan with a deadline shorter than it needs: its report, its time, and what it left in /tmp. */
async function pastTheDeadline(seconds: number): Promise<void> {
  const env = { ...process.env, SECRETSCAN_ALLOW_LOOPBACK: '1', SECRETSCAN_MAX_PACK_MB: '4096', SECRETSCAN_TMPDIR: work };
  const started = performance.now();
  const run = await runTimed(
    process.execPath,
    [binary, 'scan', `${server.origin}/${repositoryName}`, '--scope-json', scopeFile, '--timeout', String(seconds)],
    env,
  );
  const report = JSON.parse(run.stdout) as {
    status: string;
    findings: unknown[];
    checks: { status: string; detail?: string }[];
    errors: { message: string }[];
  };
  const left = (await readdir(work)).filter((name) => name.startsWith('secretscan-'));
  process.stdout.write(
    [
      `past the deadline (--timeout ${seconds}): exit after ${((performance.now() - started) / 1000).toFixed(1)} s, status ${report.status}, ${report.findings.length} findings kept, ${report.checks.filter((check) => check.status === 'error').length} of ${report.checks.length} checks error, ${report.checks.filter((check) => check.status === 'pass').length} pass`,
      `  error: ${report.errors[0]?.message ?? '(none)'}`,
      `  clone folders left in the temporary folder: ${left.length}; peak RSS ${peakRssMb(run.stderr).toFixed(0)} MB`,
    ].join('\n') + '\n',
  );
}

const stat = (list: number[], digits = 2): string => {
  const { min, median, max } = spread(list);
  return `min ${min.toFixed(digits)} / median ${median.toFixed(digits)} / max ${max.toFixed(digits)}`;
};
const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');

type Side = 'ours' | 'floor' | 'shipped';
type Run = Record<Side, Measured>;
type Mode = 'one core' | 'unpinned';

/** Each side once in the given mode, the order rotating with `run`. */
async function measureRun(run: number, mode: Mode): Promise<Run> {
  const pin = mode === 'one core';
  const sides: [Side, () => Promise<Measured>][] = [
    ['ours', () => ours(pin)],
    ['floor', () => floor(true, pin)],
    ['shipped', () => floor(false, pin)],
  ];
  const measured: Partial<Run> = {};
  for (let turn = 0; turn < sides.length; turn += 1) {
    const [name, measure] = sides[(run + turn) % sides.length];
    measured[name] = await measure();
  }
  return measured as Run;
}

/** The figures of one mode's runs (paired within each run). */
function report(runs: Run[]): string[] {
  const mbps = (m: Measured): number => m.bytes / 1e6 / (m.ms / 1000);
  const cps = (m: Measured): number => m.commits / (m.ms / 1000);
  const ours_ = runs.map((r) => r.ours);
  const floor_ = runs.map((r) => r.floor);
  const shipped_ = runs.map((r) => r.shipped);
  const seconds = (list: Measured[], pick: (m: Measured) => number): string =>
    stat(
      list.map((m) => pick(m) / 1000),
      1,
    );
  const cpu = (list: Measured[]): string =>
    stat(
      list.map((m) => m.cpuS),
      1,
    );
  const rss = (list: Measured[]): string =>
    stat(
      list.map((m) => m.peakRssMb),
      0,
    );
  return [
    `  ours  wall s:        ${seconds(ours_, (m) => m.ms)}`,
    `          fetch+index: ${seconds(ours_, (m) => m.extra.clone_ms)}; walk: ${seconds(ours_, (m) => m.extra.walk_ms)}; rules: ${seconds(ours_, (m) => m.extra.scan_ms)}`,
    `  floor wall s:        ${seconds(floor_, (m) => m.ms)}`,
    `  floor, no prefilter: ${seconds(shipped_, (m) => m.ms)}`,
    `  ours  MB/s of blobs: ${stat(ours_.map(mbps))}`,
    `  floor MB/s of patch: ${stat(floor_.map(mbps))} (no prefilter: ${stat(shipped_.map(mbps))})`,
    `  ours  commits/s:     ${stat(ours_.map(cps), 0)}`,
    `  floor commits/s:     ${stat(floor_.map(cps), 0)} (no prefilter: ${stat(shipped_.map(cps), 0)})`,
    `  ratio ours/floor, paired, commits/s:               ${stat(pairedRatios(ours_.map(cps), floor_.map(cps)))}  (equal work; goal >= 0.8)`,
    `  ratio ours/floor without the prefilter, commits/s: ${stat(pairedRatios(ours_.map(cps), shipped_.map(cps)))}  (reference: unequal rules)`,
    `  ratio ours/floor, paired, MB/s:                    ${stat(pairedRatios(ours_.map(mbps), floor_.map(mbps)))}  (ours ${(ours_[0].bytes / 1e6).toFixed(0)} MB of blobs, the floor ${(floor_[0].bytes / 1e6).toFixed(0)} MB of patches)`,
    `  CPU s (user+sys): ours ${cpu(ours_)} (the Git server's not counted); floor ${cpu(floor_)}; floor, no prefilter ${cpu(shipped_)}`,
    `  ratio floor/ours CPU s, paired: ${stat(
      pairedRatios(
        floor_.map((m) => m.cpuS),
        ours_.map((m) => m.cpuS),
      ),
    )}`,
    `  peak RSS MB: ours ${rss(ours_)}  (goal < 512); floor (largest process of the pipeline) ${rss(floor_)}; no prefilter ${rss(shipped_)}`,
  ];
}

const unpinnable = pinningUnavailable();
const modes: Mode[] = unpinnable === undefined ? ['one core', 'unpinned'] : ['unpinned'];
const ownAffinity = unpinnable === undefined ? affinity() : undefined;

try {
  const loadAtStart = load();
  const runs: Record<Mode, Run[]> = { 'one core': [], unpinned: [] };
  for (let run = 0; run < RUNS; run += 1) {
    for (let turn = 0; turn < modes.length; turn += 1) {
      const mode = modes[(run + turn) % modes.length];
      // Pinned: this process (the Git server) and the http-backend it spawns on SERVER_CORE.
      if (mode === 'one core') setAffinity(SERVER_CORE);
      try {
        runs[mode].push(await measureRun(run, mode));
      } finally {
        if (mode === 'one core') setAffinity(ownAffinity!);
      }
      const { ours: a, floor: b, shipped: c } = runs[mode].at(-1)!;
      process.stderr.write(
        `run ${run + 1}/${RUNS}, ${mode}: ours ${(a.ms / 1000).toFixed(1)} s, floor ${(b.ms / 1000).toFixed(1)} s, floor without the prefilter ${(c.ms / 1000).toFixed(1)} s\n`,
      );
    }
  }
  const first = runs.unpinned[0];
  const lines = [
    own === undefined
      ? `secretscan bench: ${COMMITS} commits, ~${MEGABYTES} MB of distinct blobs (repository ${generatedMs > 1000 ? `generated in ${(generatedMs / 1000).toFixed(0)} s` : 'from the cache'}: ${gitdir}), ${RUNS} interleaved runs`
      : `secretscan bench: the repository ${gitdir} (branch main), ${RUNS} interleaved runs`,
    `load average (1, 5, 15 min): ${loadAtStart} at the start, ${load()} at the end (2 cores)`,
    'equal work: ours against "floor" (both run detectSecrets with its keyword prefilter, as shipped now);',
    '"floor, no prefilter" is the floor with secretlint\'s whole preset on every text (the library before the prefilter), for reference',
    `ours  (fetch over loopback smart HTTP + index + walk + rules on each distinct blob): ${first.ours.commits} commits, ${(first.ours.bytes / 1e6).toFixed(1)} MB of blobs, pack ${first.ours.extra.pack_mb.toFixed(1)} MB, ${first.ours.extra.files} files, ${first.ours.extra.findings} findings`,
    `floor (git log -p | the same rules, per commit):                                   ${first.floor.commits} commits, ${(first.floor.bytes / 1e6).toFixed(1)} MB of patches, ${first.floor.extra.matches} matches (no prefilter: ${first.shipped.extra.matches})`,
  ];
  if (unpinnable === undefined) {
    lines.push(
      `EQUAL CONCURRENCY (the headline): each side's own work on core ${WORK_CORE} only (taskset -c ${WORK_CORE}: our scan process; the floor's`,
      `  whole pipeline, git log and node together), as a 1024 MB Lambda gives either ~0.58 of one vCPU; the loopback Git server,`,
      `  which the floor has no counterpart of, on core ${SERVER_CORE}`,
      ...report(runs['one core']),
    );
  } else {
    lines.push(`EQUAL CONCURRENCY: not measured: ${unpinnable}; only the unpinned figures follow`);
  }
  lines.push(
    "UNPINNED (not equal concurrency): the floor's git log and node run side by side on the two cores, ours is one thread sharing them with the Git server",
    ...report(runs.unpinned),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  if (values.deadline !== undefined) await pastTheDeadline(Number(values.deadline));
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}
