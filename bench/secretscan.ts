import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSecretscan } from '../layers/secretscan/build.ts';
import { gitAvailable, startGitServer } from '../test/helpers/git-http-server.ts';
import { benchRepository } from './secretscan-repo.ts';

// npm run bench:secrets [-- --commits 10000 --mb 200 --runs 3]
//
// secretscan (the built executable: clone over smart HTTP from git http-backend on loopback, walk,
// read each distinct blob once, run the rules) against the floor `git log -p | <the same rules>`
// (bench/secretscan-floor.ts: detectSecrets over the patch stream of a local bare repository),
// over the same generated history. Pairs run interleaved (ours first on even runs, the floor first
// on odd ones); each side's peak RSS comes from GNU time. The repository is cached under the OS
// temporary folder. The ratio compares commits per second: both cover every commit of the branch.
const { values } = parseArgs({
  options: {
    commits: { type: 'string', default: '10000' },
    mb: { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
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
  bytes: number;
  commits: number;
  peakRssMb: number;
  extra: Record<string, number>;
}

function runTimed(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(TIME, ['-f', 'peak_rss_kb=%M', command, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
const repository = await benchRepository(tmpdir(), COMMITS, MEGABYTES);
const generatedMs = performance.now() - generating;
const server = await startGitServer({ root: repository.root });
const binary = await buildSecretscan(join(work, 'dist', 'bin', 'secretscan'));
const scopeFile = join(work, 'scope.json');
await writeFile(scopeFile, JSON.stringify({ max_commits: COMMITS }));
const floorScript = fileURLToPath(new URL('./secretscan-floor.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const gitdir = join(repository.root, 'bench.git');

async function ours(): Promise<Measured> {
  const env = { ...process.env, SECRETSCAN_ALLOW_LOOPBACK: '1', SECRETSCAN_MAX_PACK_MB: '4096', SECRETSCAN_TMPDIR: work };
  const run = await runTimed(
    process.execPath,
    [binary, 'scan', `${server.origin}/bench.git`, '--scope-json', scopeFile, '--timeout', '3600'],
    env,
  );
  const report = JSON.parse(run.stdout) as { status: string; findings: unknown[] };
  if (report.status !== 'ok') throw new Error(`secretscan: ${run.stdout.slice(0, 2000)}`);
  const events = progressEvents(run.stderr);
  return {
    ms: run.ms,
    bytes: Number(events['files scanned'].bytes),
    commits: Number(events['history walked'].commits),
    peakRssMb: peakRssMb(run.stderr),
    extra: {
      clone_ms: Number(events['clone finished'].ms),
      pack_mb: Number(events['clone finished'].bytes) / 1e6,
      files: Number(events['history walked'].files),
      findings: report.findings.length,
    },
  };
}

async function floor(): Promise<Measured> {
  const pipeline = `git -C '${gitdir}' log -p --no-color --format='commit %H' main | '${tsx}' '${floorScript}'`;
  const run = await runTimed('sh', ['-c', pipeline], process.env);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { commits: number; bytes: number; matches: number };
  return { ms: run.ms, bytes: result.bytes, commits: result.commits, peakRssMb: peakRssMb(run.stderr), extra: { matches: result.matches } };
}

const stat = (list: number[], digits = 2): string => {
  const sorted = [...list].sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(digits)} / median ${sorted[Math.floor(sorted.length / 2)].toFixed(digits)} / max ${sorted.at(-1)!.toFixed(digits)}`;
};

try {
  const pairs: { ours: Measured; floor: Measured }[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    let a: Measured;
    let b: Measured;
    if (run % 2 === 0) {
      a = await ours();
      b = await floor();
    } else {
      b = await floor();
      a = await ours();
    }
    pairs.push({ ours: a, floor: b });
    process.stderr.write(`run ${run + 1}/${RUNS}: ours ${(a.ms / 1000).toFixed(1)} s, floor ${(b.ms / 1000).toFixed(1)} s\n`);
  }
  const mbps = (m: Measured): number => m.bytes / 1e6 / (m.ms / 1000);
  const cps = (m: Measured): number => m.commits / (m.ms / 1000);
  const first = pairs[0];
  const lines = [
    `secretscan bench: ${COMMITS} commits, ~${MEGABYTES} MB of distinct blobs (repository ${generatedMs > 1000 ? `generated in ${(generatedMs / 1000).toFixed(0)} s` : 'from the cache'}: ${gitdir}), ${RUNS} interleaved pairs`,
    `ours  (clone over loopback smart HTTP + walk + rules on each distinct blob): ${first.ours.commits} commits, ${(first.ours.bytes / 1e6).toFixed(1)} MB of blobs, pack ${first.ours.extra.pack_mb.toFixed(1)} MB, ${first.ours.extra.files} files, ${first.ours.extra.findings} findings`,
    `floor (git log -p | the same rules, per commit):                           ${first.floor.commits} commits, ${(first.floor.bytes / 1e6).toFixed(1)} MB of patches, ${first.floor.extra.matches} matches`,
    `ours  wall s:        ${stat(
      pairs.map((p) => p.ours.ms / 1000),
      1,
    )}  (clone and index: ${stat(
      pairs.map((p) => p.ours.extra.clone_ms / 1000),
      1,
    )})`,
    `floor wall s:        ${stat(
      pairs.map((p) => p.floor.ms / 1000),
      1,
    )}`,
    `ours  MB/s of blobs: ${stat(pairs.map((p) => mbps(p.ours)))}`,
    `floor MB/s of patch: ${stat(pairs.map((p) => mbps(p.floor)))}`,
    `ours  commits/s:     ${stat(
      pairs.map((p) => cps(p.ours)),
      0,
    )}`,
    `floor commits/s:     ${stat(
      pairs.map((p) => cps(p.floor)),
      0,
    )}`,
    `ratio ours/floor commits/s (paired): ${stat(pairs.map((p) => cps(p.ours) / cps(p.floor)))}  (goal >= 0.8)`,
    `peak RSS MB: ours ${stat(
      pairs.map((p) => p.ours.peakRssMb),
      0,
    )}; floor (largest process of the pipeline) ${stat(
      pairs.map((p) => p.floor.peakRssMb),
      0,
    )}  (goal < 512)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await server.close();
  await rm(work, { recursive: true, force: true });
}
