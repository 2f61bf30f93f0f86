import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { startDnsServer } from '../layers/mailscan/test/helpers/dns-server.ts';
import { amplificationZone, largestAggregateReport } from '../layers/mailscan/test/helpers/hostile-inputs.ts';
import { writePeakRssHook } from '../layers/mailscan/test/helpers/peak-rss.ts';
import { formatSpread, interleaved, pairedRatios } from './paired.ts';

// npm run bench:hostile -- --baseline PATH [--runs N] [--input spf|rua|both]: the two costly inputs
// of issue 19, through the bundled CLI, this build (A) and a baseline build (B: say, one built from
// the commit before the fix) in turn, A B A B: wall time, CPU time (user + system) and peak RSS of
// the whole process, each as median (min–max), and A ÷ B paired per round.
//   spf: amplify.test, 99 includes of 1,000 `a:` terms (`--timeout 10`); also the DNS queries the
//        scan sent (the DNS server runs in this process and counts them) and the SPF lookups it
//        reported. A run still going after 60 s is killed and shown as such.
//   rua: the largest aggregate report the bounds admit (200,000 records, each from its own IP,
//        gzip), scanned with --no-reputation.
const { values } = parseArgs({
  options: { baseline: { type: 'string' }, runs: { type: 'string', default: '5' }, input: { type: 'string', default: 'both' } },
});
if (!values.baseline) throw new Error('--baseline PATH (a mailscan built from another commit) is required');
const runs = Number(values.runs);
const work = await mkdtemp(join(tmpdir(), 'bench-hostile-'));
const bin = await buildMailscan(join(work, 'bin', 'mailscan'));
const hook = writePeakRssHook(work);
const usageFile = join(work, 'usage.json');
const KILL_AFTER_MS = 60_000;

interface Sample {
  wall: number;
  cpu: number;
  rssMiB: number;
  killed: boolean;
  stdout: string;
}

function runOnce(cli: string, args: string[]): Promise<Sample> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--require', hook, cli, ...args],
      { env: { PATH: process.env.PATH ?? '', PEAK_RSS_FILE: usageFile }, timeout: KILL_AFTER_MS, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) => {
        const wall = performance.now() - started;
        const killed = error !== null && error.killed === true;
        void readFile(usageFile, 'utf8')
          .then((text) => JSON.parse(text) as { maxRssKiB: number; cpuMs: number })
          .catch(() => ({ maxRssKiB: Number.NaN, cpuMs: Number.NaN }))
          .then(async (usage) => {
            await rm(usageFile, { force: true });
            resolve({ wall, cpu: usage.cpuMs, rssMiB: usage.maxRssKiB / 1024, killed, stdout });
          });
      },
    );
  });
}

function table(title: string, samples: Record<'this build' | 'baseline', Sample[]>, extra: (sample: Sample) => string): string {
  const lines = [title, '', '| build | wall | CPU | peak RSS | killed at 60 s | per run |', '|---|---:|---:|---:|---:|---|'];
  for (const [name, list] of Object.entries(samples)) {
    lines.push(
      `| ${name} | ${formatSpread(
        list.map((s) => s.wall / 1000),
        ' s',
        2,
      )} | ${formatSpread(
        list.map((s) => s.cpu / 1000),
        ' s',
        2,
      )} | ${formatSpread(
        list.map((s) => s.rssMiB),
        ' MiB',
      )} | ${list.filter((s) => s.killed).length}/${list.length} | ${list.map(extra).join('; ')} |`,
    );
  }
  const a = samples['this build'];
  const b = samples.baseline;
  const ratio = (pick: (sample: Sample) => number) => formatSpread(pairedRatios(a.map(pick), b.map(pick)), '', 3);
  lines.push(
    '',
    `this build ÷ baseline, paired: wall ${ratio((s) => s.wall)}, CPU ${ratio((s) => s.cpu)}, peak RSS ${ratio((s) => s.rssMiB)}`,
    '',
  );
  return lines.join('\n');
}

const output: string[] = [`hostile inputs (issue 19), ${runs} interleaved rounds, node ${process.version}; median (min–max)`, ''];
try {
  if (values.input !== 'rua') {
    const dns = await startDnsServer({ zones: [{ text: amplificationZone(), origin: 'amplify.test' }] });
    const spfRun = (cli: string) => async () => {
      dns.reset();
      const sample = await runOnce(cli, ['scan', 'amplify.test', '--no-reputation', '--timeout', '10', '--nameserver', dns.address]);
      return { ...sample, queries: dns.log.length };
    };
    const samples = await interleaved({ 'this build': spfRun(bin), baseline: spfRun(values.baseline) }, runs, 0);
    output.push(
      table('SPF amplification: amplify.test, 99 includes × 1,000 a terms, --timeout 10', samples, (sample) => {
        const queries = (sample as Sample & { queries: number }).queries;
        if (sample.killed) return `killed, ${queries} queries`;
        const spf = (JSON.parse(sample.stdout) as { surfaces: { posture: { spf: { status: string; lookups: number } } } }).surfaces.posture
          .spf;
        return `${queries} queries, spf ${spf.status} ${spf.lookups} lookups`;
      }),
    );
    await dns.close();
  }
  if (values.input !== 'spf') {
    const dns = await startDnsServer({ zoneDir: fileURLToPath(new URL('../test/fixtures/mailscan/zones/', import.meta.url)) });
    const file = join(work, 'largest.xml.gz');
    await writeFile(file, gzipSync(largestAggregateReport()));
    const ruaRun = (cli: string) => () =>
      runOnce(cli, ['scan', 'good.test', '--no-reputation', '--nameserver', dns.address, '--rua', file]);
    const samples = await interleaved({ 'this build': ruaRun(bin), baseline: ruaRun(values.baseline) }, runs, 0);
    output.push(
      table('RUA: one gzip report of 200,000 records from 200,000 IPs (66 MB of XML)', samples, (sample) => {
        if (sample.killed) return 'killed';
        const rua = (JSON.parse(sample.stdout) as { surfaces: { rua: { status: string; totals: { records: number } } } }).surfaces.rua;
        return `${rua.status} ${rua.totals.records}`;
      }),
    );
    await dns.close();
  }
  process.stdout.write(`${output.join('\n')}\n`);
} finally {
  await rm(work, { recursive: true, force: true });
}
